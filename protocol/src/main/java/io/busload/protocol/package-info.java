/**
 * The event-bus contract between agents, coordinators and dashboards.
 *
 * <p>Everything that crosses a process boundary is a record here, carrying {@link
 * io.busload.protocol.Protocol#SCHEMA_VERSION}, so that a member can refuse what it does not understand
 * instead of misreading it. Addresses live in {@link io.busload.protocol.Addresses} alone; codecs are
 * registered once by {@link io.busload.protocol.Codecs#register}. Kept small and stable: every other
 * module depends on it.
 */
package io.busload.protocol;
