/** The Live view, the dashboard's default route: the chart and the button of the live feature. */
package io.busload.dashboard.live.ui;
