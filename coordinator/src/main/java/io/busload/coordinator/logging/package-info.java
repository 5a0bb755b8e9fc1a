/**
 * Logging the coordinator's layers share: below every other package (Main, verticle, api, fleet, schedule,
 * analysis, store may all use it; it uses none of them), so that sharing it draws no arrow back up.
 */
package io.busload.coordinator.logging;
