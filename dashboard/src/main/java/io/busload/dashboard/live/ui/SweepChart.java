package io.busload.dashboard.live.ui;

import com.vaadin.flow.component.Composite;
import io.busload.dashboard.echarts.ECharts;
import io.busload.dashboard.live.StrideBandwidth;
import io.busload.protocol.KernelResult;
import java.util.List;

/** One chart of the running sweep against one parameter, growing point by point as results arrive. */
class SweepChart extends Composite<ECharts> {
  private final StrideBandwidth model;

  SweepChart(String id, StrideBandwidth model) {
    this.model = model;
    getContent().setId(id);
    getContent().setHeight("460px");
    getContent().setOption(model.option());
  }

  StrideBandwidth model() {
    return model;
  }

  void load(String sweepId, List<KernelResult> results) {
    model.load(sweepId, results);
    getContent().setOption(model.option());
  }

  void follow(String sweepId) {
    if (model.follow(sweepId)) {
      getContent().setOption(model.option());
    }
  }

  /**
   * Draws every result that arrived since the last call in one update (thousands of devices reporting):
   * a few points are appended, more than {@link #MAX_APPENDS} (or any change that needs a redraw) send the whole
   * option once, so the browser redraws at most once per batch. True when the chart switched to a newer sweep.
   */
  boolean showAll(List<KernelResult> results) {
    String before = model.sweepId();
    boolean redraw = false;
    java.util.Map<String, StrideBandwidth.Change.Point> points = new java.util.LinkedHashMap<>();
    for (KernelResult result : results) {
      switch (model.add(result)) {
        case StrideBandwidth.Change.Point point -> points.put(point.seriesId() + "@" + point.stride(), point);
        case StrideBandwidth.Change.Redraw r -> redraw = true;
        case StrideBandwidth.Change.Ignored ignored -> { }
      }
    }
    if (redraw || points.size() > MAX_APPENDS) {
      getContent().setOption(model.option());
    } else {
      points.values().forEach(this::append);
    }
    return before != null && !before.equals(model.sweepId());
  }

  /** Appending a point makes the browser copy the chart's option once; past a few, one new option costs less. */
  static final int MAX_APPENDS = 8;

  private void append(StrideBandwidth.Change.Point point) {
    getContent().appendPoint(point.seriesId(), point.stride(), point.gigabytesPerSecond());
    getContent().appendPoint(point.lowId(), point.stride(), point.bandLow());
    getContent().appendPoint(point.bandId(), point.stride(), point.bandHeight());
  }
}
