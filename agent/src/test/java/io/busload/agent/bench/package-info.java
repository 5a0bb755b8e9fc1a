/** Benchmarks of the agent's own host-side work, run on request (the suite's CPU time). */
package io.busload.agent.bench;
