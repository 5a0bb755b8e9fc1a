/**
 * What the kernel says about processes and sockets ({@code /proc}, {@code ss}): the simulator measures other
 * processes (members, the coordinator, PostgreSQL) from outside, so that measuring does not load what is measured.
 */
package io.busload.simulator.os;
