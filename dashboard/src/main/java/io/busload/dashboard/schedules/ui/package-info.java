/** The Schedules view and its form. */
package io.busload.dashboard.schedules.ui;
