/**
 * Schedules: cron timetables in a time zone that turn into sweeps. One coordinator leads the firing
 * (the oldest data member of the Hazelcast cluster); the store's (schedule, fire time) key makes each fire
 * happen once even while leadership changes hands.
 */
package io.busload.coordinator.schedule;
