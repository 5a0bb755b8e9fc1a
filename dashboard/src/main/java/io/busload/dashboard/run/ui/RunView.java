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
import io.busload.dashboard.base.ui.CsvTable;
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
  private final CsvTable<Run> runsCsv = new CsvTable<>(runs, "runs.csv");
  private final HorizontalLayout exports = new HorizontalLayout();
  private final ECharts samples = new ECharts();
  private final Grid<KernelResult> results = new Grid<>();
  private final CsvTable<KernelResult> resultsCsv = new CsvTable<>(results, "results.csv");
  private final Grid<Map.Entry<String, String>> fingerprint = new Grid<>();
  private final CsvTable<Map.Entry<String, String>> fingerprintCsv = new CsvTable<>(fingerprint, "fingerprint.csv");
  private final H4 countersTitle = new H4("Hardware counters against the model (Nsight Compute, profiled kernels)");
  private final ECharts countersChart = new ECharts();
  private final Grid<RunDetail.CounterRow> counters = new Grid<>();
  private final CsvTable<RunDetail.CounterRow> countersCsv = new CsvTable<>(counters, "counters.csv");
  private final CoordinatorNotice notice = new CoordinatorNotice();
  private final io.busload.dashboard.links.ui.LinksPanel links = new io.busload.dashboard.links.ui.LinksPanel();
  // Each grid with its Export CSV link: shown and hidden together.
  private final com.vaadin.flow.component.Component runsTable;
  private final com.vaadin.flow.component.Component resultsTable;
  private final com.vaadin.flow.component.Component fingerprintTable;
  private final com.vaadin.flow.component.Component countersTable;

  public RunView(CoordinatorClient coordinator) {
    this.coordinator = coordinator;
    configureRunList();
    configureSamplesChart();
    configureResults();
    configureFingerprint();
    configureCounters();
    runsTable = runsCsv.withLink();
    resultsTable = resultsCsv.withLink();
    fingerprintTable = fingerprintCsv.withLink();
    countersTable = countersCsv.withLink();
    // Counters right under the box plot: a flagged kernel is the first thing worth reading in a profiled run.
    add(heading, notice, runsTable, exports, samples, links, countersTitle, countersTable, countersChart,
        resultsTable, fingerprintTable);
  }

  private void configureRunList() {
    runs.setId("runs-grid");
    runsCsv.column("Run", Run::runId).setAutoWidth(true);
    runsCsv.column("Sweep", Run::sweepId).setAutoWidth(true);
    runsCsv.column("Device", Run::deviceId).setAutoWidth(true);
    runsCsv.column("State", Run::state).setAutoWidth(true);
    runsCsv.column("Done", r -> r.completed() + "/" + r.total()).setAutoWidth(true);
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
    resultsCsv.column("Kernel", KernelResult::kernel).setAutoWidth(true);
    resultsCsv.column("Parameters", r -> History.params(r.params())).setAutoWidth(true);
    resultsCsv.column("Check", r -> r.valid() ? "valid" : "INVALID").setAutoWidth(true);
    resultsCsv.column("Status", r -> r.status().name()).setAutoWidth(true);
    resultsCsv.column("Bandwidth", r -> r.bandwidth() == null ? "" : ChartOptions.gigabytes(r.bandwidth()) + " GB/s").setAutoWidth(true);
    resultsCsv.column("Median launch", r -> ChartOptions.round(r.medianSeconds() * 1e6, 3) + " µs")
        .setAutoWidth(true);
    resultsCsv.column("Spread", r -> ChartOptions.round(r.relativeSpread() * 100, 2) + " %")
        .setAutoWidth(true);
    resultsCsv.column("Samples", r -> r.samples().size()).setAutoWidth(true);
    resultsCsv.column("Counters", r -> r.counters() == null ? "" : r.counters().flagged() ? "FLAG vs model" : "as modelled").setAutoWidth(true);
    // How each number was obtained, from the result's typed fields.
    resultsCsv.column("Timing", RunDetail::timing).setFlexGrow(1);
    resultsCsv.column("Clocks", RunDetail::clocks).setFlexGrow(1);
    resultsCsv.column("L2", RunDetail::cache).setAutoWidth(true);
    resultsCsv.column("Energy", RunDetail::energy).setFlexGrow(1);
    resultsCsv.column("First mismatches", r -> String.join("; ", r.mismatches())).setFlexGrow(1);
    results.setAllRowsVisible(true);
  }

  private void configureFingerprint() {
    fingerprint.setId("fingerprint-grid");
    fingerprintCsv.column("Device fingerprint", Map.Entry::getKey).setAutoWidth(true);
    fingerprintCsv.column("", Map.Entry::getValue).setFlexGrow(1);
    fingerprint.setAllRowsVisible(true);
  }

  private void configureCounters() {
    countersTitle.setId("counters-title");
    countersChart.setId("counters-chart");
    countersChart.setHeight("480px");
    counters.setId("counters-grid");
    counters.addThemeVariants(GridVariant.LUMO_WRAP_CELL_CONTENT);
    // Fixed widths with wrapping: auto widths of these cells pushed the flag column off the screen.
    countersCsv.column("Kernel and parameters", RunDetail.CounterRow::kernel).setWidth("15em")
        .setFlexGrow(0);
    countersCsv.column("Load sectors per request, measured / model", RunDetail.CounterRow::loadSectors)
        .setWidth("8em").setFlexGrow(0);
    countersCsv.column("Store sectors per request, measured / model", RunDetail.CounterRow::storeSectors)
        .setWidth("8em").setFlexGrow(0);
    countersCsv.column("DRAM read MB, measured / model (useful\u2013sectors)", RunDetail.CounterRow::dramRead)
        .setWidth("9em").setFlexGrow(0);
    countersCsv.column("DRAM written MB, measured / model (useful\u2013sectors)", RunDetail.CounterRow::dramWritten).setWidth("9em").setFlexGrow(0);
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
    countersTable.setVisible(any);
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
    runsTable.setVisible(true);
    exports.setVisible(false);
    samples.setVisible(false);
    resultsTable.setVisible(false);
    fingerprintTable.setVisible(false);
    showCounters(null, List.of());
    links.setVisible(false);
  }

  private void showRun(String runId) {
    runsTable.setVisible(false);
    Run run = coordinator.run(runId).orElse(null);
    if (run == null) {
      heading.setText("No run " + runId);
      exports.setVisible(false);
      samples.setVisible(false);
      resultsTable.setVisible(false);
      fingerprintTable.setVisible(false);
      showCounters(runId, List.of());
      links.setVisible(false);
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
    showLinks(run, found);
    fingerprint.setItems(found.isEmpty() ? List.of() : List.copyOf(RunDetail.fingerprint(found.getFirst()).entrySet()));
    exports.removeAll();
    exports.add(new Span("Export this run's results:"), export(query, runId, "csv", "text/csv"),
        export(query, runId, "json", "application/json"));
    exports.setVisible(true);
    samples.setVisible(true);
    resultsTable.setVisible(true);
    fingerprintTable.setVisible(true);
  }

  /**
   * An interconnect run fills one row of its host's GPU x GPU matrix; the sweep's runs on the host's other
   * GPUs fill the others, so the heatmap reads them too. The curves are this run's.
   */
  private void showLinks(Run run, List<KernelResult> found) {
    if (!io.busload.dashboard.links.Links.any(found)) {
      links.setVisible(false);
      return;
    }
    String host = io.busload.dashboard.links.Links.host(run.deviceId());
    List<KernelResult> hostResults = coordinator.results(ResultQuery.sweep(run.sweepId()).withLimit(RESULT_LIMIT))
        .stream().filter(r -> io.busload.dashboard.links.Links.host(r.device().id()).equals(host)).toList();
    links.show(hostResults.isEmpty() ? found : hostResults, Map.of(host, Map.of(run.deviceId(), found)));
  }

  private Anchor export(ResultQuery query, String runId, String format, String type) {
    Anchor link = new Anchor(DownloadHandler.fromInputStream(event -> new DownloadResponse(
        coordinator.export(query, format), "run-" + runId + "." + format, type, -1)), format.toUpperCase());
    link.setId("export-" + format);
    return link;
  }
}
