// Browser half of io.busload.dashboard.echarts.ECharts: a custom element owning one ECharts instance.
// Only the chart types and components the dashboard uses are registered, to keep the bundle small.
import * as echarts from 'echarts/core';
import { BarChart, BoxplotChart, LineChart, ScatterChart } from 'echarts/charts';
import {
  DataZoomComponent,
  GridComponent,
  LegendComponent,
  MarkLineComponent,
  MarkPointComponent,
  TitleComponent,
  TooltipComponent,
} from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';

echarts.use([LineChart, BarChart, BoxplotChart, ScatterChart, GridComponent, LegendComponent, MarkLineComponent,
  MarkPointComponent, TitleComponent, TooltipComponent, DataZoomComponent, CanvasRenderer]);

type Point = [number, number];
type Option = echarts.EChartsCoreOption;

class BusloadEChart extends HTMLElement {
  private chart?: echarts.ECharts;
  private resizeObserver?: ResizeObserver;
  // Java may send an option before the element is in the document; it is applied on connect.
  private pending?: Option;

  connectedCallback() {
    if (!this.style.display) {
      this.style.display = 'block';
    }
    this.chart = echarts.init(this, undefined, { renderer: 'canvas' });
    // The host is sized by Vaadin layouts (flex, percentages), which ECharts cannot observe by itself.
    this.resizeObserver = new ResizeObserver(() => this.chart?.resize());
    this.resizeObserver.observe(this);
    if (this.pending) {
      this.chart.setOption(this.pending, { notMerge: true });
      this.pending = undefined;
    }
  }

  disconnectedCallback() {
    this.resizeObserver?.disconnect();
    this.resizeObserver = undefined;
    // Keep what was shown so a re-attached element (Vaadin re-uses elements) redraws it.
    this.pending = this.chart?.getOption() as Option | undefined;
    this.chart?.dispose();
    this.chart = undefined;
  }

  /** Replaces the whole option (a JSON string, as Java sends it). */
  setOption(json: string) {
    const option = JSON.parse(json) as Option;
    if (this.chart) {
      this.chart.setOption(option, { notMerge: true });
    } else {
      this.pending = option;
    }
  }

  /** Adds [x, y] to the series with this id, ordered by x, replacing a point already at x. */
  appendPoint(seriesId: string, x: number, y: number) {
    const option = (this.chart ? this.chart.getOption() : this.pending) as { series?: any[] } | undefined;
    const series = option?.series?.find((s) => s.id === seriesId);
    if (!series) {
      throw new Error(`busload-echart: no series with id '${seriesId}'`);
    }
    const data: Point[] = ((series.data ?? []) as Point[]).filter((p) => p[0] !== x);
    data.push([x, y]);
    data.sort((a, b) => a[0] - b[0]);
    if (this.chart) {
      this.chart.setOption({ series: [{ id: seriesId, data }] });
    } else {
      series.data = data;
    }
  }

  /** The option as ECharts holds it now: what tests read to see what the chart shows. */
  option(): Option | undefined {
    return this.chart ? (this.chart.getOption() as Option) : this.pending;
  }
}

if (!customElements.get('busload-echart')) {
  customElements.define('busload-echart', BusloadEChart);
}
