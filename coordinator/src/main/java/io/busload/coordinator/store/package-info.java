/**
 * The coordinator's durable memory over JDBC: one store per aggregate, each owning its SQL, over one shared
 * {@link io.busload.coordinator.store.Database} (pool, Flyway migrations, transactions).
 *
 * <ul>
 *   <li>{@link io.busload.coordinator.store.AgentStore}: agents and their devices;
 *   <li>{@link io.busload.coordinator.store.SweepStore}: sweeps and their runs;
 *   <li>{@link io.busload.coordinator.store.ResultStore}: results, their samples and counters (insert only), in
 *       monthly partitions of {@code results} (V8), each result's JSON kept compressed by
 *       {@link io.busload.coordinator.store.ResultJson}; the raw samples apart, in monthly partitions of
 *       {@code result_samples} (V16), which {@link io.busload.coordinator.store.SampleRetention} drops whole once
 *       they are older than the retention while every summary stays;
 *   <li>{@link io.busload.coordinator.store.ScheduleStore}: schedules and their fires;
 *   <li>{@link io.busload.coordinator.store.PushStore}: pushed files, stored whole with their runs and
 *       results in one transaction through {@code ResultStore}'s insert;
 *   <li>{@link io.busload.coordinator.store.ComparisonStore} and {@link io.busload.coordinator.store.ViewStore}: reads
 *       that compare results and draw the dashboard's views, and the regressions found.
 * </ul>
 *
 * <p>PostgreSQL: a server named by {@code BUSLOAD_DB_URL} in production, or an embedded one started in the
 * data directory by default; the schema is owned by Flyway migrations ({@code db/migration}). Every method blocks:
 * {@link io.busload.coordinator.store.Database} refuses to run on a Vert.x event loop, so a slip shows up in tests
 * instead of as a stalled fleet.
 */
package io.busload.coordinator.store;
