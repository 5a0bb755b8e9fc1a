package io.busload.agent.measure;

/**
 * Who a measurement is for and by whom: copied into every result.
 *
 * @param runId null for a standalone CLI run
 * @param sweepId null for a standalone CLI run
 */
public record RunContext(String runId, String sweepId, String agentId, String agentVersion) {}
