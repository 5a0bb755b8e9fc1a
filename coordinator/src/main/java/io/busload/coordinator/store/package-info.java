/**
 * The coordinator's durable memory: agents, devices, sweeps, runs and results, over JDBC.
 *
 * <p>PostgreSQL (issue 4): a server named by {@code BUSLOAD_DB_URL} in production, or an embedded one started
 * in the data directory by default; the schema is owned by Flyway migrations ({@code db/migration}). Every method blocks: {@link
 * io.busload.coordinator.store.Store} refuses to run on a Vert.x event loop, so a slip shows up in tests
 * instead of as a stalled fleet.
 */
package io.busload.coordinator.store;
