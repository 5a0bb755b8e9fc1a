/** A kernel over time per device, with regressions and improvements. */
package io.busload.dashboard.history;
