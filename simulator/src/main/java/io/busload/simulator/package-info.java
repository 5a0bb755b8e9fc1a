/**
 * How far the fleet holds, measured rather than guessed (docs/design/capacity.md). {@code ./busload simulate
 * membership} starts real Hazelcast member processes
 * with the fleet's own cluster settings and measures what each member costs as the cluster grows;
 * {@code ./busload simulate fleet} runs a real coordinator (embedded PostgreSQL) and many virtual agents in one JVM
 * that speak the real protocol over the real clustered event bus, with the agent's own outbox and delivery.
 */
package io.busload.simulator;
