/**
 * Regression detection: every new valid result against its own history (same device, kernel and
 * params). See {@link io.busload.coordinator.analysis.RegressionCheck} for the method.
 */
package io.busload.coordinator.analysis;
