// Browser half of io.busload.dashboard.echarts.ECharts: a custom element owning one ECharts instance.
// Only the chart types and components the dashboard uses are registered, to keep the bundle small.
import * as echarts from 'echarts/core';
import { BarChart, BoxplotChart, HeatmapChart, LineChart, ScatterChart } from 'echarts/charts';
import {
  DataZoomComponent,
  GridComponent,
  LegendComponent,
  MarkAreaComponent,
  MarkLineComponent,
  MarkPointComponent,
  TitleComponent,
  ToolboxComponent,
  TooltipComponent,
  VisualMapComponent,
} from 'echarts/components';
import { CanvasRenderer, SVGRenderer } from 'echarts/renderers';

// Heatmap and visual map: the GPU x GPU link matrices.
echarts.use([LineChart, BarChart, BoxplotChart, ScatterChart, HeatmapChart, GridComponent, LegendComponent,
  MarkLineComponent, MarkPointComponent, MarkAreaComponent, TitleComponent, TooltipComponent, DataZoomComponent,
  ToolboxComponent, VisualMapComponent, CanvasRenderer, SVGRenderer]);

// Every chart exports PNG and SVG from its toolbox. ECharts' own saveAsImage gives only the format of the
// renderer in use, so the two buttons are custom features: PNG from the canvas at twice its pixels, SVG from the same
// option drawn once more by the SVG renderer, off screen.
const PNG_ICON = 'path://M4,4H28V28H4Z M8,22L14,14L19,20L22,16L26,22Z';
const SVG_ICON = 'path://M4,4H28V28H4Z M9,20C12,10 20,10 23,20 M9,12H23';

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

  /** Replaces the whole option (a JSON string, as Java sends it), with the export toolbox added. */
  setOption(json: string) {
    const option = this.withToolbox(JSON.parse(json) as Option);
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

  private withToolbox(option: Option): Option {
    const o = option as any;
    if (o.toolbox === false) {
      delete o.toolbox;
      return option;
    }
    o.toolbox = {
      right: 12,
      top: 0,
      feature: {
        myPng: { show: true, title: 'Save as PNG', icon: PNG_ICON, onclick: () => this.exportImage('png') },
        mySvg: { show: true, title: 'Save as SVG', icon: SVG_ICON, onclick: () => this.exportImage('svg') },
      },
    };
    return option;
  }

  /** The chart as an image file, downloaded as {id or "chart"}.png or .svg; what the toolbox buttons do. */
  exportImage(type: 'png' | 'svg') {
    if (!this.chart) {
      return;
    }
    const name = `${this.id || 'chart'}.${type}`;
    if (type === 'png') {
      const url = this.chart.getDataURL({ type: 'png', pixelRatio: 2, backgroundColor: '#fff',
        excludeComponents: ['toolbox'] });
      this.download(url, name);
      return;
    }
    const box = document.createElement('div');
    const width = this.clientWidth || 800;
    const height = this.clientHeight || 480;
    box.style.cssText = `position:fixed;left:-10000px;top:0;width:${width}px;height:${height}px`;
    document.body.appendChild(box);
    const svg = echarts.init(box, undefined, { renderer: 'svg', width, height });
    try {
      const option = this.chart.getOption() as any;
      option.toolbox = [];
      option.animation = false;
      svg.setOption(option, { notMerge: true });
      const text = svg.renderToSVGString();
      this.download(URL.createObjectURL(new Blob([text], { type: 'image/svg+xml' })), name);
    } finally {
      svg.dispose();
      box.remove();
    }
  }

  private download(url: string, name: string) {
    const a = document.createElement('a');
    a.href = url;
    a.download = name;
    document.body.appendChild(a);
    a.click();
    a.remove();
  }

  /** The option as ECharts holds it now: what tests read to see what the chart shows. */
  option(): Option | undefined {
    return this.chart ? (this.chart.getOption() as Option) : this.pending;
  }
}

if (!customElements.get('busload-echart')) {
  customElements.define('busload-echart', BusloadEChart);
}
