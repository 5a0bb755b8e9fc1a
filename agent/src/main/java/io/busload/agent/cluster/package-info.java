/**
 * Agent mode: the agent as a member of the fleet's cluster, following docs/contract.md. Hello until acked (and
 * every 30 s), heartbeat every 2 s, runs accepted on {@code Addresses.agentRuns(agentId)} and queued on the
 * device's worker thread, statuses and results delivered in order with retries until the coordinator acks.
 * Nothing here blocks an event loop: measuring happens on device workers and hops back with runOnContext.
 */
package io.busload.agent.cluster;
