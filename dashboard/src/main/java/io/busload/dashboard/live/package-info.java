/**
 * The live feature: bandwidth against stride for the latest sweep, growing as the coordinator publishes results,
 * and the button that starts a stride sweep.
 *
 * <p>{@link io.busload.dashboard.live.StrideBandwidth} turns results into chart series without any Vaadin UI, so
 * what is charted (valid results only, GB/s from bytes/s, one line per device and kernel) is tested without a
 * browser.
 */
package io.busload.dashboard.live;
