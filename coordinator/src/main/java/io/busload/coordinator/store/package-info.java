/**
 * The coordinator's durable memory: agents, devices, sweeps, runs and results, over JDBC.
 *
 * <p>Embedded H2 in PostgreSQL mode today, PostgreSQL in a later issue, so the SQL stays portable and the
 * schema is owned by Flyway migrations ({@code db/migration}). Every method blocks: {@link
 * io.busload.coordinator.store.Store} refuses to run on a Vert.x event loop, so a slip shows up in tests
 * instead of as a stalled fleet.
 */
package io.busload.coordinator.store;
