/**
 * Membership cost: member processes, what the kernel says about them ({@code /proc}, {@code ss}),
 * and the fit of each cost against the member count. Hazelcast membership is a full mesh; these figures say what
 * that costs, and so whether agents can stay members at a thousand hosts.
 */
package io.busload.simulator.membership;
