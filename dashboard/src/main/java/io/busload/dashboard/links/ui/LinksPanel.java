package io.busload.dashboard.links.ui;

import com.vaadin.flow.component.html.H4;
import com.vaadin.flow.component.html.Span;
import com.vaadin.flow.component.orderedlayout.VerticalLayout;
import io.busload.dashboard.echarts.ECharts;
import io.busload.dashboard.links.Links;
import io.busload.protocol.KernelResult;
import java.util.List;
import java.util.Map;

/**
 * A host's links, for each host among the results: one GPU x GPU heatmap per pair kernel (or why there is no
 * pair), then the host-to-device curves. Hidden when no result is the interconnect suite's.
 */
public class LinksPanel extends VerticalLayout {
  public LinksPanel() {
    setId("links");
    setPadding(false);
    setVisible(false);
  }

  /**
   * Draws the links of every host among {@code results}; {@code curves} names each curve chart's series sources
   * per host (a run's device, or Compare's subjects of that host).
   */
  public void show(List<KernelResult> results, Map<String, Map<String, List<KernelResult>>> curves) {
    removeAll();
    Map<String, List<KernelResult>> hosts = Links.byHost(results);
    hosts.forEach((host, hostResults) -> {
      String key = host.replaceAll("[^A-Za-z0-9_-]", "_");
      add(new H4("Links of host " + host));
      String none = Links.noMatrix(hostResults);
      if (none != null) {
        Span why = new Span("GPU x GPU matrix: " + none);
        why.setId("links-no-matrix-" + key);
        add(why);
      } else {
        for (String kernel : Links.pairKernels(hostResults)) {
          ECharts heatmap = new ECharts();
          heatmap.setId("links-heatmap-" + key + "-" + kernel);
          heatmap.setHeight("420px");
          heatmap.setOption(Links.heatmap(host, kernel, hostResults));
          add(heatmap);
        }
      }
      ECharts chart = new ECharts();
      chart.setId("links-curves-" + key);
      chart.setHeight("480px");
      chart.setOption(Links.curves("Host \u2194 device links of " + host,
          curves.getOrDefault(host, Map.of(host, hostResults))));
      add(chart);
    });
    setVisible(!hosts.isEmpty());
  }
}
