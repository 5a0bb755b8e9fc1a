/**
 * A coordinator under a simulated fleet: virtual agents share one clustered Vert.x and each
 * registers its own run address, says hello, beats and delivers results through the agent's {@code Outbox} and
 * {@code Delivery}, so that what the coordinator sees is what a thousand hosts would send it.
 */
package io.busload.simulator.fleet;
