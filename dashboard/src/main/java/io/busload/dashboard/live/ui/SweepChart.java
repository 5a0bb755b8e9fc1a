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

  /** Draws the result; true when the chart switched to a newer sweep. */
  boolean show(KernelResult result) {
    String before = model.sweepId();
    switch (model.add(result)) {
      case StrideBandwidth.Change.Point point -> {
        getContent().appendPoint(point.seriesId(), point.stride(), point.gigabytesPerSecond());
        getContent().appendPoint(point.lowId(), point.stride(), point.bandLow());
        getContent().appendPoint(point.bandId(), point.stride(), point.bandHeight());
      }
      case StrideBandwidth.Change.Redraw redraw -> getContent().setOption(model.option());
      case StrideBandwidth.Change.Ignored ignored -> { }
    }
    return before != null && !before.equals(model.sweepId());
  }
}
