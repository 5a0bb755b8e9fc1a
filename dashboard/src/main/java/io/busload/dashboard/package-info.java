/**
 * The Busload dashboard: views of the fleet and of measured bandwidth, read through the coordinator's REST API
 * and kept live by results the coordinator publishes on the clustered event bus.
 *
 * <p>Feature packages ({@code fleet}, {@code live}) each hold their views under {@code ui}; shared layout is in
 * {@code base.ui}; {@code cluster} and {@code coordinator} are the only ways out of the process.
 */
package io.busload.dashboard;
