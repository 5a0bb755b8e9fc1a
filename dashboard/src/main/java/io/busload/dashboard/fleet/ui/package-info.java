/** The Fleet view: agents and devices as the coordinator sees them, refreshed while the view is open. */
package io.busload.dashboard.fleet.ui;
