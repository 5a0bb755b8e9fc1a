package io.busload.dashboard.compare.ui;

import com.vaadin.flow.component.Component;
import com.vaadin.flow.component.combobox.ComboBox;
import com.vaadin.flow.component.grid.Grid;
import com.vaadin.flow.component.grid.GridVariant;
import com.vaadin.flow.component.html.H4;
import com.vaadin.flow.component.html.Span;
import com.vaadin.flow.component.orderedlayout.HorizontalLayout;
import com.vaadin.flow.component.orderedlayout.VerticalLayout;
import com.vaadin.flow.router.BeforeEnterEvent;
import com.vaadin.flow.router.BeforeEnterObserver;
import com.vaadin.flow.router.Location;
import com.vaadin.flow.router.PageTitle;
import com.vaadin.flow.router.QueryParameters;
import com.vaadin.flow.router.Route;
import com.vaadin.flow.server.auth.AnonymousAllowed;
import io.busload.dashboard.base.ui.ChartOptions;
import io.busload.dashboard.base.ui.CoordinatorNotice;
import io.busload.dashboard.base.ui.CsvTable;
import io.busload.dashboard.base.ui.MainLayout;
import io.busload.dashboard.compare.CompareChart.Subject;
import io.busload.dashboard.compare.CompareChart;
import io.busload.dashboard.compare.PublishedFigures;
import io.busload.dashboard.coordinator.FlaggedDevice;
import io.busload.dashboard.coordinator.CoordinatorClient;
import io.busload.dashboard.coordinator.CoordinatorException;
import io.busload.dashboard.coordinator.Verdicts;
import io.busload.dashboard.echarts.ECharts;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Devices or device models side by side: grouped bars per kernel family (naive, coalesced, best), absolute or as a
 * fraction of each device's own ceiling, optionally beside published figures that are labelled as such; the chosen
 * devices that stand outside their cohort; and an A/B verdict of two sweeps or devices on their raw samples.
 *
 * <p>Every choice lives in the address ({@code ?subject=...&scale=...&published=...&baseline=...&candidate=...}), so
 * a copied link opens the same chart and tables.
 */
@Route(value = "compare", layout = MainLayout.class)
@PageTitle("Compare | Busload")
@AnonymousAllowed
public class CompareView extends VerticalLayout implements BeforeEnterObserver {
  private final CoordinatorClient coordinator;
  private final List<PublishedFigures.Figure> published = PublishedFigures.load();
  private final ComparePicker picker = new ComparePicker();
  private final ECharts chart = new ECharts();
  /** The newest results of a device read for its pairs without peer access (a matrix of 8 GPUs has 7 x 4 cells). */
  static final int PAIR_RESULTS = 500;
  /** Each chosen host's link matrix and curves, when the subjects have interconnect results. */
  private final io.busload.dashboard.links.ui.LinksPanel links = new io.busload.dashboard.links.ui.LinksPanel();
  private final H4 publishedTitle = new H4("Published figures (not measured by Busload; source in each row)");
  private final Grid<PublishedFigures.Figure> publishedGrid = new Grid<>();
  private final CsvTable<PublishedFigures.Figure> publishedCsv = new CsvTable<>(publishedGrid, "published.csv");
  private final H4 flagsTitle = new H4("Outside their cohort (same model and driver)");
  private final Grid<FlaggedDevice> flags = new Grid<>();
  private final CsvTable<FlaggedDevice> flagsCsv = new CsvTable<>(flags, "cohort-flags.csv");
  private final ComboBox<String> baseline = new ComboBox<>("A/B baseline (sweep or device)");
  private final ComboBox<String> candidate = new ComboBox<>("A/B candidate");
  private final Span verdictSummary = new Span();
  private final Grid<Verdicts.Row> verdicts = new Grid<>();
  private final CsvTable<Verdicts.Row> verdictsCsv = new CsvTable<>(verdicts, "verdicts.csv");
  private final CoordinatorNotice notice = new CoordinatorNotice();
  private final Component publishedTable;
  private final Component flagsTable;
  private final Component verdictsTable;
  /** While a link's choices are applied: the address already says them. */
  private boolean restoring;

  public CompareView(CoordinatorClient coordinator) {
    this.coordinator = coordinator;
    configurePicker();
    configureChart();
    configurePublishedTable();
    configureFlags();
    configureVerdicts();
    publishedTable = publishedCsv.withLink();
    publishedTable.setVisible(false);
    flagsTable = flagsCsv.withLink();
    verdictsTable = verdictsCsv.withLink();
    verdictsTable.setVisible(false);
    add(picker, notice, chart, links, flagsTitle, flagsTable, publishedTitle, publishedTable,
        new H4("A/B verdict on raw samples"), new HorizontalLayout(baseline, candidate), verdictSummary,
        verdictsTable);
  }

  /** Applies the link's choices; with none, every device is chosen (the view opens with bars). */
  @Override
  public void beforeEnter(BeforeEnterEvent event) {
    Map<String, List<String>> query = event.getLocation().getQueryParameters().getParameters();
    restoring = true;
    try {
      CompareChart.Scale scale = CompareChart.Scale.ABSOLUTE;
      String wantedScale = first(query, "scale");
      if (wantedScale != null) {
        try {
          scale = CompareChart.Scale.valueOf(wantedScale.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
          notice.show("unknown scale '" + wantedScale + "' in the address; showing " + scale.unit);
        }
      }
      picker.show(scale, "true".equals(first(query, "published")));
      offer(query.getOrDefault("subject", List.of()).stream().filter(v -> !v.isBlank()).map(ComparePicker::subject)
          .collect(java.util.stream.Collectors.toCollection(LinkedHashSet::new)));
      offerAbSides(first(query, "baseline"), first(query, "candidate"));
    } finally {
      restoring = false;
    }
    show(picker.subjects(), picker.scale(), picker.published());
    showVerdicts();
  }

  private static String first(Map<String, List<String>> query, String name) {
    List<String> values = query.get(name);
    return values == null || values.isEmpty() || values.getFirst().isBlank() ? null : values.getFirst();
  }

  private void configurePicker() {
    picker.addChangedListener(changed -> {
      if (!restoring) {
        show(changed.subjects(), changed.scale(), changed.published());
        remember();
      }
    });
  }

  private void configureChart() {
    chart.setId("compare-chart");
    chart.setHeight("480px");
  }

  private void configurePublishedTable() {
    publishedGrid.setId("published-grid");
    publishedCsv.column("Kind", f -> "published").setAutoWidth(true);
    publishedCsv.column("Source", PublishedFigures.Figure::source).setAutoWidth(true);
    publishedCsv.column("Device", PublishedFigures.Figure::device).setAutoWidth(true);
    publishedCsv.column("Family", PublishedFigures.Figure::family).setAutoWidth(true);
    publishedCsv.column("Variant", f -> f.variant() + " " + f.parameter()).setAutoWidth(true);
    publishedCsv.column("Figure", f -> f.value() + " " + f.unit()).setAutoWidth(true);
    publishedCsv.column("Note", PublishedFigures.Figure::note).setFlexGrow(1);
    publishedGrid.setAllRowsVisible(true);
    publishedTitle.setVisible(false);
  }

  private void configureFlags() {
    flags.setId("cohort-flags-grid");
    flagsCsv.column("Device", FlaggedDevice::deviceId).setAutoWidth(true);
    flagsCsv.column("Kernel case", FlaggedDevice::series).setAutoWidth(true);
    flagsCsv.column("Against its peers", f -> String.format(Locale.ROOT, "%+.1f%%", 100 * f.relative()))
        .setAutoWidth(true);
    flagsCsv.column("Flag", FlaggedDevice::sentence).setFlexGrow(1);
    flags.setAllRowsVisible(true);
    flags.addThemeVariants(GridVariant.LUMO_WRAP_CELL_CONTENT);
  }

  private void configureVerdicts() {
    baseline.setId("ab-baseline");
    candidate.setId("ab-candidate");
    baseline.setWidth("28em");
    candidate.setWidth("28em");
    baseline.setAllowCustomValue(true);
    candidate.setAllowCustomValue(true);
    baseline.addCustomValueSetListener(e -> baseline.setValue(e.getDetail()));
    candidate.addCustomValueSetListener(e -> candidate.setValue(e.getDetail()));
    baseline.addValueChangeListener(e -> abChanged());
    candidate.addValueChangeListener(e -> abChanged());
    verdictSummary.setId("ab-summary");
    verdicts.setId("verdicts-grid");
    verdictsCsv.column("Kernel", Verdicts.Row::kernel).setAutoWidth(true);
    verdictsCsv.column("Params", Verdicts.Row::params).setAutoWidth(true);
    verdictsCsv.column("Baseline GB/s", r -> gbs(r.baselineMedian())).setAutoWidth(true);
    verdictsCsv.column("Candidate GB/s", r -> gbs(r.candidateMedian())).setAutoWidth(true);
    verdictsCsv.column("Shift (95% interval)", CompareView::shift).setAutoWidth(true);
    verdictsCsv.column("Verdict", Verdicts.Row::verdict).setAutoWidth(true);
    verdictsCsv.column("Notes", r -> String.join("; ", notes(r))).setFlexGrow(1);
    verdicts.setAllRowsVisible(true);
    verdicts.addThemeVariants(GridVariant.LUMO_WRAP_CELL_CONTENT);
  }

  private void abChanged() {
    if (!restoring) {
      showVerdicts();
      remember();
    }
  }

  private static String gbs(Double bytesPerSecond) {
    return bytesPerSecond == null ? "" : String.valueOf(ChartOptions.gigabytes(bytesPerSecond));
  }

  private static String shift(Verdicts.Row r) {
    return r.relative() == null ? "" : String.format(Locale.ROOT, "%+.2f%% (%+.2f%% to %+.2f%%)", 100 * r.relative(),
        100 * r.relativeLower(), 100 * r.relativeUpper());
  }

  private static List<String> notes(Verdicts.Row r) {
    List<String> notes = new ArrayList<>();
    if ("UNCLEAR".equals(r.verdict())) {
      notes.add(r.reason());
    }
    notes.addAll(r.notes());
    return notes;
  }

  private void offer(Set<String> wanted) {
    try {
      List<io.busload.dashboard.coordinator.Device> devices = new ArrayList<>(coordinator.devices());
      devices.addAll(coordinator.pushedDevices()); // results pushed from outside the fleet compare the same way
      picker.offer(devices, wanted);
    } catch (CoordinatorException e) {
      notice.show(e.getMessage());
    }
  }

  private void offerAbSides(String wantedBaseline, String wantedCandidate) {
    Set<String> sides = new TreeSet<>();
    try {
      coordinator.sweeps().forEach(s -> sides.add("sweep:" + s.id()));
      coordinator.devices().forEach(d -> sides.add("device:" + d.id()));
    } catch (CoordinatorException e) {
      notice.show(e.getMessage());
    }
    if (wantedBaseline != null) {
      sides.add(wantedBaseline);
    }
    if (wantedCandidate != null) {
      sides.add(wantedCandidate);
    }
    baseline.setItems(sides);
    candidate.setItems(sides);
    baseline.setValue(wantedBaseline);
    candidate.setValue(wantedCandidate);
  }

  /** The choices in the address bar (replacing the entry, not adding one). */
  private void remember() {
    Map<String, List<String>> query = new LinkedHashMap<>();
    query.put("subject", new ArrayList<>(new TreeSet<>(picker.subjects())));
    query.put("scale", List.of(picker.scale().name()));
    if (picker.published()) {
      query.put("published", List.of("true"));
    }
    if (baseline.getValue() != null) {
      query.put("baseline", List.of(baseline.getValue()));
    }
    if (candidate.getValue() != null) {
      query.put("candidate", List.of(candidate.getValue()));
    }
    getUI().ifPresent(ui -> ui.getPage().getHistory().replaceState(null,
        new Location("compare", new QueryParameters(query))));
  }

  private void show(Set<String> chosen, CompareChart.Scale scale, boolean withPublished) {
    try {
      List<Subject> subjects = new ArrayList<>();
      for (String choice : new TreeSet<>(chosen)) {
        // The newest valid result per kernel and params, chosen by the coordinator: reading a subject's newest
        // results and picking here took 5,000 whole results per device and seconds at 1M stored.
        List<io.busload.protocol.KernelResult> latest = choice.startsWith(ComparePicker.MODEL)
            ? coordinator.latestResults(null, choice.substring(ComparePicker.MODEL.length()))
            : coordinator.latestResults(choice.substring(ComparePicker.DEVICE.length()), null);
        subjects.add(new Subject(choice, CompareChart.latest(latest)));
      }
      chart.setOption(CompareChart.option(subjects, scale, withPublished ? published : List.of()));
      showLinks(subjects);
      publishedGrid.setItems(withPublished ? published : List.of());
      publishedTitle.setVisible(withPublished);
      publishedTable.setVisible(withPublished);
      List<FlaggedDevice> outside = coordinator.cohortFlags().stream().filter(f -> chosen.contains(
          ComparePicker.DEVICE + f.deviceId()) || chosen.contains(ComparePicker.MODEL + f.deviceName())).toList();
      flags.setItems(outside);
      flagsTitle.setText(outside.isEmpty() ? "No chosen device is outside its cohort"
          : "Outside their cohort (same model and driver)");
      flagsTable.setVisible(!outside.isEmpty());
      notice.clear();
    } catch (CoordinatorException e) {
      notice.show(e.getMessage());
    }
  }

  /** Every chosen subject's interconnect results: a heatmap per host, and curves with one line per subject. */
  private void showLinks(List<Subject> subjects) {
    List<io.busload.protocol.KernelResult> all = new ArrayList<>();
    for (Subject s : subjects) {
      all.addAll(s.latest());
      // The latest results are valid ones only; a pair without peer access is a skipped result, read here so the
      // matrix says "no peer access" instead of leaving the cell blank.
      if (s.label().startsWith(ComparePicker.DEVICE) && io.busload.dashboard.links.Links.any(s.latest())) {
        coordinator.results(io.busload.dashboard.coordinator.ResultQuery.device(
                s.label().substring(ComparePicker.DEVICE.length())).withLimit(PAIR_RESULTS)).stream()
            .filter(r -> !r.valid() && r.kernel().startsWith(io.busload.dashboard.links.Links.PAIR_PREFIX))
            .forEach(all::add);
      }
    }
    Map<String, Map<String, List<io.busload.protocol.KernelResult>>> curves = new java.util.TreeMap<>();
    for (Subject s : subjects) {
      io.busload.dashboard.links.Links.byHost(s.latest()).forEach((host, results) ->
          curves.computeIfAbsent(host, h -> new java.util.LinkedHashMap<>()).put(s.label(), results));
    }
    links.show(all, curves);
  }

  private void showVerdicts() {
    String b = baseline.getValue();
    String c = candidate.getValue();
    if (b == null || c == null) {
      verdictSummary.setText("Choose a baseline and a candidate: a sweep, or a device's newest results.");
      verdictsTable.setVisible(false);
      return;
    }
    try {
      Verdicts v = coordinator.verdicts(b, c, 0.01);
      verdicts.setItems(v.rows());
      verdictsTable.setVisible(true);
      List<String> counts = new ArrayList<>();
      for (String verdict : List.of("SLOWER", "FASTER", "SAME", "UNCLEAR")) {
        counts.add(v.counts().getOrDefault(verdict, 0) + " " + verdict);
      }
      verdictSummary.setText(c + " against " + b + ": " + String.join(", ", counts)
          + " (Mann-Whitney, Hodges-Lehmann shift with its 95% interval; a shift counts from ±1%)");
      notice.clear();
    } catch (CoordinatorException e) {
      verdictsTable.setVisible(false);
      verdictSummary.setText("");
      notice.show(e.getMessage());
    }
  }
}
