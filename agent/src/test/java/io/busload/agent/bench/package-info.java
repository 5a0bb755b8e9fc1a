/** Benchmarks of the agent's own host-side work, run on request (issue 12 point 8: the suite's CPU time). */
package io.busload.agent.bench;
