package io.busload.dashboard.run.ui;

import com.vaadin.flow.component.grid.Grid;
import com.vaadin.flow.component.grid.GridVariant;
import com.vaadin.flow.component.html.Anchor;
import com.vaadin.flow.component.html.H3;
import com.vaadin.flow.component.html.H4;
import com.vaadin.flow.component.html.Span;
import com.vaadin.flow.component.orderedlayout.HorizontalLayout;
import com.vaadin.flow.component.orderedlayout.VerticalLayout;
import com.vaadin.flow.router.BeforeEvent;
import com.vaadin.flow.router.HasUrlParameter;
import com.vaadin.flow.router.OptionalParameter;
import com.vaadin.flow.router.PageTitle;
import com.vaadin.flow.router.Route;
import com.vaadin.flow.server.auth.AnonymousAllowed;
import com.vaadin.flow.server.streams.DownloadHandler;
import com.vaadin.flow.server.streams.DownloadResponse;
import io.busload.dashboard.base.ui.ChartOptions;
import io.busload.dashboard.base.ui.CoordinatorNotice;
import io.busload.dashboard.base.ui.MainLayout;
import io.busload.dashboard.coordinator.CoordinatorClient;
import io.busload.dashboard.coordinator.CoordinatorException;
import io.busload.dashboard.coordinator.ResultQuery;
import io.busload.dashboard.coordinator.Run;
import io.busload.dashboard.echarts.ECharts;
import io.busload.dashboard.history.History;
import io.busload.dashboard.run.RunDetail;
import io.busload.protocol.KernelResult;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One run: every kernel's result with its samples as a box plot, validity and first mismatches, the device
 * fingerprint, and the results as CSV or JSON; where the run was profiled, each kernel's hardware counters beside
 * its model's prediction, flagged beyond 10%. Without a run id: the latest runs to pick from.
 */
@Route(value = "runs", layout = MainLayout.class)
@PageTitle("Run | Busload")
@AnonymousAllowed
public class RunView extends VerticalLayout implements HasUrlParameter<String> {
  static final int RUN_LIMIT = 100;
  static final int RESULT_LIMIT = 10_000;

  private final CoordinatorClient coordinator;
  private final H3 heading = new H3("Runs");
  private final Grid<Run> runs = new Grid<>();
  private final HorizontalLayout exports = new HorizontalLayout();
  private final ECharts samples = new ECharts();
  private final Grid<KernelResult> results = new Grid<>();
  private final Grid<Map.Entry<String, String>> fingerprint = new Grid<>();
  private final H4 countersTitle = new H4("Hardware counters against the model (Nsight Compute, profiled kernels)");
  private final ECharts countersChart = new ECharts();
  private final Grid<RunDetail.CounterRow> counters = new Grid<>();
  private final CoordinatorNotice notice = new CoordinatorNotice();

  public RunView(CoordinatorClient coordinator) {
    this.coordinator = coordinator;
    configureRunList();
    configureSamplesChart();
    configureResults();
    configureFingerprint();
    configureCounters();
    // Counters right under the box plot: a flagged kernel is the first thing worth reading in a profiled run.
    add(heading, notice, runs, exports, samples, countersTitle, counters, countersChart, results, fingerprint);
  }

  private void configureRunList() {
    runs.setId("runs-grid");
    runs.addColumn(Run::runId).setHeader("Run").setAutoWidth(true);
    runs.addColumn(Run::sweepId).setHeader("Sweep").setAutoWidth(true);
    runs.addColumn(Run::deviceId).setHeader("Device").setAutoWidth(true);
    runs.addColumn(Run::state).setHeader("State").setAutoWidth(true);
    runs.addColumn(r -> r.completed() + "/" + r.total()).setHeader("Done").setAutoWidth(true);
    runs.addItemClickListener(click -> getUI().ifPresent(ui -> ui.navigate(RunView.class, click.getItem().runId())));
    runs.setAllRowsVisible(true);
  }

  private void configureSamplesChart() {
    samples.setId("samples-chart");
    samples.setHeight("520px");
  }

  private void configureResults() {
    results.setId("results-grid");
    results.addThemeVariants(GridVariant.LUMO_WRAP_CELL_CONTENT);
    results.addColumn(KernelResult::kernel).setHeader("Kernel").setAutoWidth(true);
    results.addColumn(r -> History.params(r.params())).setHeader("Parameters").setAutoWidth(true);
    results.addColumn(r -> r.valid() ? "valid" : "INVALID").setHeader("Check").setAutoWidth(true);
    results.addColumn(r -> r.bandwidth() == null ? "" : ChartOptions.gigabytes(r.bandwidth()) + " GB/s")
        .setHeader("Bandwidth").setAutoWidth(true);
    results.addColumn(r -> ChartOptions.round(r.medianSeconds() * 1e6, 3) + " µs").setHeader("Median launch")
        .setAutoWidth(true);
    results.addColumn(r -> ChartOptions.round(r.relativeSpread() * 100, 2) + " %").setHeader("Spread")
        .setAutoWidth(true);
    results.addColumn(r -> r.samples().size()).setHeader("Samples").setAutoWidth(true);
    results.addColumn(r -> r.counters() == null ? "" : r.counters().flagged() ? "FLAG vs model" : "as modelled")
        .setHeader("Counters").setAutoWidth(true);
    results.addColumn(r -> String.join("; ", r.mismatches())).setHeader("First mismatches").setFlexGrow(1);
    results.setAllRowsVisible(true);
  }

  private void configureFingerprint() {
    fingerprint.setId("fingerprint-grid");
    fingerprint.addColumn(Map.Entry::getKey).setHeader("Device fingerprint").setAutoWidth(true);
    fingerprint.addColumn(Map.Entry::getValue).setHeader("").setFlexGrow(1);
    fingerprint.setAllRowsVisible(true);
  }

  private void configureCounters() {
    countersTitle.setId("counters-title");
    countersChart.setId("counters-chart");
    countersChart.setHeight("480px");
    counters.setId("counters-grid");
    counters.addThemeVariants(GridVariant.LUMO_WRAP_CELL_CONTENT);
    // Fixed widths with wrapping: auto widths of these cells pushed the flag column off the screen.
    counters.addColumn(RunDetail.CounterRow::kernel).setHeader("Kernel and parameters").setWidth("15em")
        .setFlexGrow(0);
    counters.addColumn(RunDetail.CounterRow::loadSectors).setHeader("Load sectors per request, measured / model")
        .setWidth("8em").setFlexGrow(0);
    counters.addColumn(RunDetail.CounterRow::storeSectors).setHeader("Store sectors per request, measured / model")
        .setWidth("8em").setFlexGrow(0);
    counters.addColumn(RunDetail.CounterRow::dramRead).setHeader("DRAM read MB, measured / model (useful\u2013sectors)")
        .setWidth("9em").setFlexGrow(0);
    counters.addColumn(RunDetail.CounterRow::dramWritten)
        .setHeader("DRAM written MB, measured / model (useful\u2013sectors)").setWidth("9em").setFlexGrow(0);
    counters.addComponentColumn(row -> {
      Span flag = new Span(row.flag());
      if (row.flagged()) {
        flag.getElement().setAttribute("flagged", "");
        flag.getStyle().set("color", "var(--lumo-error-text-color)").set("font-weight", "600");
      }
      return flag;
    }).setHeader("Against the model").setFlexGrow(1);
    counters.setAllRowsVisible(true);
  }

  private void showCounters(String runId, List<KernelResult> found) {
    List<KernelResult> profiled = RunDetail.profiled(found);
    boolean any = !profiled.isEmpty();
    if (any) {
      countersChart.setOption(RunDetail.countersOption(runId, profiled));
      counters.setItems(profiled.stream().map(RunDetail::counterRow).toList());
    }
    countersTitle.setVisible(any);
    countersChart.setVisible(any);
    counters.setVisible(any);
  }

  @Override
  public void setParameter(BeforeEvent event, @OptionalParameter String runId) {
    try {
      if (runId == null) {
        showRunList();
      } else {
        showRun(runId);
      }
      notice.clear();
    } catch (CoordinatorException e) {
      notice.show(e.getMessage());
    }
  }

  private void showRunList() {
    heading.setText("Runs (newest first; pick one)");
    runs.setItems(coordinator.runs(null, null, RUN_LIMIT));
    runs.setVisible(true);
    exports.setVisible(false);
    samples.setVisible(false);
    results.setVisible(false);
    fingerprint.setVisible(false);
    showCounters(null, List.of());
  }

  private void showRun(String runId) {
    runs.setVisible(false);
    Run run = coordinator.run(runId).orElse(null);
    if (run == null) {
      heading.setText("No run " + runId);
      exports.setVisible(false);
      samples.setVisible(false);
      results.setVisible(false);
      fingerprint.setVisible(false);
      showCounters(runId, List.of());
      return;
    }
    heading.setText("Run " + run.runId() + " on " + run.deviceId() + ": " + run.state() + " " + run.completed() + "/"
        + run.total() + (run.message() == null ? "" : " (" + run.message() + ")"));
    ResultQuery query = ResultQuery.sweep(run.sweepId()).withDevice(run.deviceId()).withLimit(RESULT_LIMIT);
    List<KernelResult> found = RunDetail.ordered(coordinator.results(query).stream()
        .filter(r -> Objects.equals(r.runId(), runId)).toList());
    samples.setOption(RunDetail.option(runId, found));
    results.setItems(found);
    showCounters(runId, found);
    fingerprint.setItems(found.isEmpty() ? List.of() : List.copyOf(RunDetail.fingerprint(found.getFirst()).entrySet()));
    exports.removeAll();
    exports.add(new Span("Export this run's results:"), export(query, runId, "csv", "text/csv"),
        export(query, runId, "json", "application/json"));
    exports.setVisible(true);
    samples.setVisible(true);
    results.setVisible(true);
    fingerprint.setVisible(true);
  }

  private Anchor export(ResultQuery query, String runId, String format, String type) {
    Anchor link = new Anchor(DownloadHandler.fromInputStream(event -> new DownloadResponse(
        coordinator.export(query, format), "run-" + runId + "." + format, type, -1)), format.toUpperCase());
    link.setId("export-" + format);
    return link;
  }
}
