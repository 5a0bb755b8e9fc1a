/**
 * Schedules: cron timetables in a time zone that turn into sweeps. One coordinator leads the firing (the
 * holder of the leader lease in PostgreSQL, {@link io.busload.coordinator.schedule.Leadership}); the store's
 * (schedule, fire time) key makes each fire happen once even while leadership changes hands. The leader also runs
 * the hourly sample retention ({@link io.busload.coordinator.schedule.SampleAging}).
 */
package io.busload.coordinator.schedule;
