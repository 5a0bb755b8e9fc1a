/**
 * How a Busload process joins the clustered event bus: one settings record, one way to start.
 *
 * <p>Shared by agent, coordinator and dashboard so that the choices of docs/design/invariants.md#cluster-settings
 * (TCP-IP join
 * on explicit members, multicast and auto-detection off, fast split detection, fixed event-bus port, lite
 * members for everything but coordinators) are made once.
 *
 * <p>So is the event bus's security: TLS with the fleet's certificates from {@code ./busload certs} and
 * client certificates required, because Hazelcast open source lets anyone who knows the cluster name join and
 * register consumers. Which CA a member trusts is what keeps roles apart: agents and dashboards trust only the
 * coordinator CA, so whatever an agent sends can be read, and answered, by a coordinator only.
 */
package io.busload.protocol.cluster;
