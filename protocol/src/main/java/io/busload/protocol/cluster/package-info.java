/**
 * How a Busload process joins the clustered event bus: one settings record, one way to start.
 *
 * <p>Shared by agent, coordinator and dashboard so that the choices measured in ARCHITECTURE.md (TCP-IP join
 * on explicit members, multicast and auto-detection off, fast split detection, fixed event-bus port, lite
 * members for everything but coordinators) are made once.
 */
package io.busload.protocol.cluster;
