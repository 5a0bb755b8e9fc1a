/** Schedules: cron checked as typed, next fire times, target preview. */
package io.busload.dashboard.schedules;
