/**
 * The fleet feature: which agents the coordinator knows, their devices, and what each device runs now.
 *
 * <p>{@link io.busload.dashboard.fleet.FleetRows} flattens the coordinator's agents into one row per device,
 * without Vaadin, so the table's content is tested without a browser.
 */
package io.busload.dashboard.fleet;
