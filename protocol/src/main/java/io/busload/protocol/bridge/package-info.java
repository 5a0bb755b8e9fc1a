/**
 * How an agent reaches the fleet without joining its cluster: one mutual-TLS WebSocket to a
 * coordinator's event-bus bridge, carrying the protocol's records as JSON.
 *
 * <p>Full-mesh membership costs every agent a connection to every other member and a heartbeat answered to each
 * within 10 s (docs/design/fleet-transport.md measured it); agents never talk to each other, so they need only a
 * coordinator. The client lives here, beside the addresses, so that the agent, the fleet simulator's virtual agents
 * and the coordinator's tests of what a stranger can do all speak the same frames.
 */
package io.busload.protocol.bridge;
