/**
 * A small Apache ECharts component for Vaadin, kept self-contained like an add-on so it can be lifted out.
 *
 * <p>It exists because no ECharts add-on is reachable from our builds (docs/design/invariants.md#platform): the
 * Directory's add-ons are not on Maven Central. It depends on nothing else in the dashboard; the browser half is
 * {@code src/main/frontend/echarts/busload-echart.ts}.
 */
package io.busload.dashboard.echarts;
