/**
 * The coordinator process: the one member of the fleet that remembers.
 *
 * <p>Agents forget a result once it is acked and dashboards only read, so everything durable lives behind
 * this package: {@link io.busload.coordinator.Main} resolves the settings once into a {@link
 * io.busload.coordinator.CoordinatorSettings}, joins the cluster and deploys one {@link
 * io.busload.coordinator.CoordinatorVerticle}, which owns the fleet state, the store and the REST API. The
 * verticle's own concerns that read several layers below it (taking over as leader, mirroring heartbeats for a
 * standby, watching its certificates, the coordinator-wide meters) are classes of this package beside it, so the layers below stay unaware of
 * one another.
 */
package io.busload.coordinator;
