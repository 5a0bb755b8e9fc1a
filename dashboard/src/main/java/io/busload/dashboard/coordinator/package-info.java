/**
 * The coordinator's REST API as the dashboard reads it (docs/contract.md, REST): the only way the dashboard
 * learns about agents, sweeps and stored results, since only the coordinator touches the database.
 *
 * <p>Every failure, a refused request as much as an unreachable coordinator, comes back as one
 * {@link io.busload.dashboard.coordinator.CoordinatorException} whose message is fit to show in a view.
 */
package io.busload.dashboard.coordinator;
