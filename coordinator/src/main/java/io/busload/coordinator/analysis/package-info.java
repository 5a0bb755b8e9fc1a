/**
 * The coordinator's analysis of stored results, the analysis module's statistics applied to what the store holds:
 * regressions on arrival, every new valid result against its own history (same device, kernel and params; see
 * {@link io.busload.coordinator.analysis.RegressionCheck} for the method), device health, and what the REST API
 * answers about results: A/B verdicts ({@link io.busload.coordinator.analysis.AbVerdicts}), the History view's marks
 * ({@link io.busload.coordinator.analysis.HistoryAnnotations}), operators' accepted marks
 * ({@link io.busload.coordinator.analysis.AcceptedChanges}) and cohort flags
 * ({@link io.busload.coordinator.analysis.CohortReport}). Here, not in the REST resources, so the resources only
 * translate HTTP and the same logic can serve other callers.
 */
package io.busload.coordinator.analysis;
