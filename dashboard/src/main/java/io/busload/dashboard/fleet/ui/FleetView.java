package io.busload.dashboard.fleet.ui;

import com.vaadin.flow.component.AttachEvent;
import com.vaadin.flow.component.DetachEvent;
import com.vaadin.flow.component.UI;
import com.vaadin.flow.component.dependency.Uses;
import com.vaadin.flow.component.grid.Grid;
import com.vaadin.flow.component.grid.GridVariant;
import com.vaadin.flow.component.html.Span;
import com.vaadin.flow.component.orderedlayout.FlexComponent;
import com.vaadin.flow.component.orderedlayout.HorizontalLayout;
import com.vaadin.flow.component.select.Select;
import com.vaadin.flow.component.textfield.TextField;
import com.vaadin.flow.data.value.ValueChangeMode;
import com.vaadin.flow.component.orderedlayout.VerticalLayout;
import com.vaadin.flow.component.progressbar.ProgressBar;
import com.vaadin.flow.data.provider.CallbackDataProvider;
import com.vaadin.flow.data.renderer.LitRenderer;
import com.vaadin.flow.router.PageTitle;
import com.vaadin.flow.router.Route;
import com.vaadin.flow.server.auth.AnonymousAllowed;
import com.vaadin.flow.shared.Registration;
import io.busload.dashboard.base.ui.CoordinatorNotice;
import io.busload.dashboard.base.ui.CsvTable;
import io.busload.dashboard.base.ui.MainLayout;
import io.busload.dashboard.coordinator.FlaggedDevice;
import io.busload.dashboard.coordinator.CoordinatorClient;
import io.busload.dashboard.coordinator.CoordinatorException;
import io.busload.dashboard.coordinator.ExpiringCertificate;
import io.busload.dashboard.coordinator.Run;
import io.busload.dashboard.fleet.FleetRows.Row;
import io.busload.dashboard.fleet.FleetRows;
import io.busload.dashboard.fleet.FleetTable;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hosts, agents and their devices (name, kind, fingerprint), online or not, what each device runs now with a
 * progress bar, and how many runs wait in its queue.
 *
 * <p>For a fleet of 8,000 devices the grid fetches its rows a page at a time from a {@link FleetTable} (Vaadin's lazy
 * data provider), so the browser holds only the rows it shows; the devices are counted by state, filtered by text and
 * state, and grouped by model, label or host in a table of groups whose row, when chosen, narrows the device grid.
 */
@Route(value = "fleet", layout = MainLayout.class)
@PageTitle("Fleet | Busload")
@AnonymousAllowed
// The progress bars are drawn by a template (running), not a ProgressBar component: this still loads their element.
@Uses(ProgressBar.class)
public class FleetView extends VerticalLayout {
  /** Agents heartbeat every 2 s (docs/contract.md); refreshing as often shows changes without flooding REST. */
  static final int REFRESH_MILLIS = 2_000;
  /** The cohort check reads every device's newest results: once a minute is plenty for a card going bad. */
  static final int COHORT_EVERY = 30;
  private static final int QUEUE_LIMIT = 10_000;
  /** Rows the grid fetches at a time. */
  private static final int PAGE = 50;
  private static final Logger LOG = LoggerFactory.getLogger(FleetView.class);
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss")
      .withZone(ZoneId.systemDefault());

  /**
   * The run in words with a bar of its progress, linking to the run's detail. A template the browser fills from four
   * values per row, not server-side components: with components, the first page of 50 rows was 200 of them to build,
   * send and bind (first open).
   */
  private final LitRenderer<Row> running = LitRenderer.<Row>of("""
      <div style="display: flex; flex-direction: column">${item.runId
        ? html`<a href="runs/${item.runId}">${item.now}</a><vaadin-progress-bar class="run-progress"
            aria-label="progress of ${item.device}" .value=${item.progress}></vaadin-progress-bar>`
        : html`<span>${item.now}</span>`}</div>""")
      .withProperty("runId", Row::runId)
      .withProperty("now", Row::now)
      .withProperty("device", Row::deviceId)
      .withProperty("progress", Row::progress);

  private final CoordinatorClient coordinator;
  private final Grid<Row> grid = new Grid<>();
  private final Grid<FleetTable.Group> groups = new Grid<>();
  private List<FleetTable.Group> groupList = List.of();
  private final TextField search = new TextField();
  private final Select<String> activity = new Select<>();
  private final Select<FleetTable.GroupBy> groupBy = new Select<>();
  private FleetTable table = new FleetTable(List.of());
  private FleetTable.Filter filter = FleetTable.Filter.ALL;
  private final CsvTable<Row> csv = new CsvTable<>(grid, "fleet.csv");
  private final Span summary = new Span();
  /** Devices whose results came by ./busload push: no agent, never a target, but measured all the same. */
  private final Grid<io.busload.dashboard.coordinator.Device> pushed = new Grid<>();
  private final Span pushedSummary = new Span();
  private final CoordinatorNotice notice = new CoordinatorNotice();
  /** Certificates near expiry, named with their days left: the day they run out, members stop connecting. */
  final Span certificates = new Span();
  private Registration polling;
  /** Devices outside their cohort's band: "⚠ this H100 is 7% below its 11 peers on ... (and 3 more kernel cases)". */
  private Map<String, String> cohort = Map.of();
  /** Each judged device's health verdict, by device id: "FAILED: 1 uncorrected ECC error(s) ...". */
  private Map<String, io.busload.dashboard.coordinator.DeviceHealth> health = Map.of();
  private int polls;

  public FleetView(CoordinatorClient coordinator) {
    long started = System.nanoTime();
    this.coordinator = coordinator;
    configureGrid();
    configureFilters();
    configureGroups();
    configurePushedGrid();
    HorizontalLayout filters = new HorizontalLayout(search, activity, groupBy);
    filters.setDefaultVerticalComponentAlignment(FlexComponent.Alignment.BASELINE);
    certificates.setId("certificate-warning");
    certificates.getStyle().set("color", "var(--lumo-error-text-color)").set("font-weight", "600");
    certificates.setVisible(false);
    add(certificates, summary, notice, filters, groups, grid, csv.link(), pushedSummary, pushed);
    setSizeFull();
    LOG.debug("Fleet view built in {} ms", ms(System.nanoTime() - started));
  }

  private void configureGrid() {
    grid.setId("fleet-grid");
    summary.setId("fleet-summary");
    grid.addThemeVariants(GridVariant.LUMO_ROW_STRIPES, GridVariant.LUMO_WRAP_CELL_CONTENT);
    csv.column("Host / agent", row -> row.host() + " / " + row.agentId()).setAutoWidth(true);
    csv.column("State", Row::state).setAutoWidth(true);
    csv.column("Last seen", row -> formatTime(row.lastSeen())).setAutoWidth(true);
    csv.column("Device", Row::deviceId).setAutoWidth(true);
    csv.column("Name", Row::deviceName).setAutoWidth(true);
    csv.column("Fingerprint", Row::fingerprint).setAutoWidth(true);
    csv.column("Queued", Row::queued).setAutoWidth(true).setFlexGrow(0);
    csv.column("Cohort", row -> cohort.getOrDefault(row.deviceId(), "")).setAutoWidth(true)
        .setPartNameGenerator(row -> cohort.containsKey(row.deviceId()) ? "cohort-flag" : null);
    csv.column("Health", row -> health.containsKey(row.deviceId()) ? health.get(row.deviceId()).text() : "")
        .setAutoWidth(true).setPartNameGenerator(row -> healthPart(health.get(row.deviceId())));
    csv.csvOnly("Running now", Row::now);
    grid.addColumn(running).setHeader("Running now").setWidth("16em").setFlexGrow(1);
    grid.setSizeFull();
    grid.setPageSize(PAGE);
    // Lazy: the grid asks for the rows in view (50 at a time) as it scrolls; 8,000 rows never travel at once. Rows are
    // known by agent and device, so the browser's keys survive a refresh that brings new figures for them.
    grid.setItems(new CallbackDataProvider<Row, Void>(
        query -> table.page(filter, query.getOffset(), query.getLimit()).stream(), query -> table.count(filter),
        row -> row.agentId() + "\n" + row.deviceId()));
  }

  private void configureFilters() {
    search.setId("fleet-filter");
    search.setPlaceholder("Filter: host, device, model, label, fingerprint");
    search.setClearButtonVisible(true);
    search.setWidth("24em");
    search.setValueChangeMode(ValueChangeMode.LAZY);
    search.addValueChangeListener(e -> applyFilter());
    activity.setId("fleet-state");
    activity.setLabel("State");
    activity.setItems("all", "busy", "idle", "offline");
    activity.setValue("all");
    activity.addValueChangeListener(e -> applyFilter());
    groupBy.setId("fleet-group-by");
    groupBy.setLabel("Group by");
    groupBy.setItems(FleetTable.GroupBy.values());
    groupBy.setItemLabelGenerator(g -> g == FleetTable.GroupBy.NONE ? "nothing" : g.label().toLowerCase());
    groupBy.setValue(FleetTable.GroupBy.NONE);
    groupBy.addValueChangeListener(e -> applyFilter());
  }

  private void configureGroups() {
    groups.setId("fleet-groups");
    groups.addThemeVariants(GridVariant.LUMO_COMPACT, GridVariant.LUMO_ROW_STRIPES);
    groups.addColumn(FleetTable.Group::key).setHeader("Group").setAutoWidth(true).setFlexGrow(1);
    groups.addColumn(g -> g.counts().devices()).setHeader("Devices").setAutoWidth(true);
    groups.addColumn(g -> g.counts().busy()).setHeader("Busy").setAutoWidth(true);
    groups.addColumn(g -> g.counts().idle()).setHeader("Idle").setAutoWidth(true);
    groups.addColumn(g -> g.counts().offline()).setHeader("Offline").setAutoWidth(true);
    groups.setHeight("14em");
    // Known by key: each refresh brings new counts for the same groups, and a click must still name its group.
    groups.setItems(new CallbackDataProvider<FleetTable.Group, Void>(
        query -> groupList.stream().skip(query.getOffset()).limit(query.getLimit()), query -> groupList.size(),
        FleetTable.Group::key));
    groups.setVisible(false);
    // A click chooses the group, a second click on it shows every group again. A click rather than the selection:
    // each refresh gives the grid new items, and the choice must outlive them.
    groups.addItemClickListener(e -> {
      if (e.getItem() != null) {
        filter = filter.withGroup(e.getItem().key().equals(filter.group()) ? null : e.getItem().key());
        showTable();
      }
    });
  }

  /** The filter as the fields say now; a group chosen stays chosen while it still exists. */
  private void applyFilter() {
    FleetRows.Activity state = "all".equals(activity.getValue()) || activity.getValue() == null ? null
        : FleetRows.Activity.valueOf(activity.getValue().toUpperCase(java.util.Locale.ROOT));
    String group = groupBy.getValue() == filter.groupBy() ? filter.group() : null;
    filter = new FleetTable.Filter(search.getValue(), state, groupBy.getValue(), group);
    showTable();
  }

  /** Counts, groups and the grid from the current table and filter; the grid refetches only the rows in view. */
  private void showTable() {
    FleetTable.Counts all = table.counts();
    FleetTable.Counts shown = table.counts(filter);
    summary.setText(String.format("%,d device(s) on %,d host(s): %,d busy, %,d idle, %,d offline", all.devices(),
        table.hosts(), all.busy(), all.idle(), all.offline())
        + (shown.equals(all) ? "" : String.format(" · shown: %,d (%,d busy, %,d idle, %,d offline)", shown.devices(),
            shown.busy(), shown.idle(), shown.offline())));
    groupList = table.groups(filter);
    groups.setVisible(filter.groupBy() != FleetTable.GroupBy.NONE);
    groups.getDataProvider().refreshAll();
    groupList.stream().filter(g -> g.key().equals(filter.group())).findFirst().ifPresentOrElse(groups::select,
        groups::deselectAll);
    grid.getDataProvider().refreshAll();
  }

  private void configurePushedGrid() {
    pushed.setId("pushed-grid");
    pushed.addThemeVariants(GridVariant.LUMO_ROW_STRIPES, GridVariant.LUMO_WRAP_CELL_CONTENT);
    pushed.addColumn(io.busload.dashboard.coordinator.Device::host).setHeader("Host (as pushed)").setAutoWidth(true);
    pushed.addColumn(io.busload.dashboard.coordinator.Device::id).setHeader("Device").setAutoWidth(true);
    pushed.addColumn(io.busload.dashboard.coordinator.Device::model).setHeader("Name").setAutoWidth(true);
    pushed.addColumn(io.busload.dashboard.coordinator.Device::fingerprint).setHeader("Fingerprint").setAutoWidth(true);
    pushed.addColumn(device -> formatTime(device.lastSeen())).setHeader("Last result").setAutoWidth(true);
    pushed.setAllRowsVisible(true);
    pushed.setVisible(false);
  }

  @Override
  protected void onAttach(AttachEvent attachEvent) {
    long started = System.nanoTime();
    super.onAttach(attachEvent);
    UI ui = attachEvent.getUI();
    refresh();
    ui.setPollInterval(REFRESH_MILLIS);
    polling = ui.addPollListener(poll -> refresh());
    LOG.debug("Fleet view attached, its first read included, in {} ms", ms(System.nanoTime() - started));
  }

  @Override
  protected void onDetach(DetachEvent detachEvent) {
    if (polling != null) {
      polling.remove();
      polling = null;
    }
    detachEvent.getUI().setPollInterval(-1);
    super.onDetach(detachEvent);
    LOG.debug("Fleet view detached");
  }

  void refresh() {
    try {
      Read read = read(coordinator, polls++ % COHORT_EVERY == 0);
      table = read.table();
      if (read.cohort() != null) {
        cohort = read.cohort();
      }
      if (read.certificates() != null) {
        String warning = certificateWarning(read.certificates());
        certificates.setText(warning);
        certificates.setVisible(!warning.isEmpty());
      }
      health = read.health();
      showTable();
      pushed.setItems(read.pushed());
      pushed.setVisible(!read.pushed().isEmpty());
      pushedSummary.setText(read.pushed().isEmpty() ? "" : read.pushed().size()
          + " device(s) known only through pushed results (./busload push), never a sweep's target");
      notice.clear();
    } catch (CoordinatorException e) {
      // Keep the last rows: stale but labelled beats an empty table while the coordinator restarts.
      notice.show(e.getMessage());
    }
  }

  /** What one refresh reads from the coordinator: the table of devices, the cohort marks (null: not read this time). */
  record Read(FleetTable table, Map<String, String> cohort, List<io.busload.dashboard.coordinator.Device> pushed,
      List<ExpiringCertificate> certificates,
      Map<String, io.busload.dashboard.coordinator.DeviceHealth> health) {}

  /**
   * The coordinator's agents, queued runs, cohort flags and certificates near expiry ({@code withCohort}: both change
   * slowly) and pushed devices, timed (DEBUG).
   */
  static Read read(CoordinatorClient coordinator, boolean withCohort) {
    long started = System.nanoTime();
    var agents = coordinator.agents();
    long agentsRead = System.nanoTime();
    Map<String, Integer> queued = coordinator.runs("QUEUED", null, QUEUE_LIMIT).stream()
        .collect(Collectors.groupingBy(Run::deviceId, Collectors.summingInt(run -> 1)));
    long queuedRead = System.nanoTime();
    Map<String, String> cohort = withCohort ? marks(coordinator.cohortFlags()) : null;
    List<ExpiringCertificate> certificates = withCohort ? certificates(coordinator) : null;
    long cohortRead = System.nanoTime();
    FleetTable table = new FleetTable(FleetRows.of(agents, queued));
    long tabled = System.nanoTime();
    var pushed = coordinator.pushedDevices();
    Map<String, io.busload.dashboard.coordinator.DeviceHealth> health;
    try {
      health = coordinator.deviceHealth().stream().collect(Collectors.toMap(
          io.busload.dashboard.coordinator.DeviceHealth::deviceId, h -> h, (a, b) -> b));
    } catch (CoordinatorException e) {
      // A coordinator that judges no health (an older one during an upgrade) still gets its fleet shown.
      LOG.debug("device health not read: {}", e.getMessage());
      health = Map.of();
    }
    if (!LOG.isDebugEnabled()) {
      return new Read(table, cohort, pushed, certificates, health);
    }
    // Counting the devices walks every row: only when the line is written, not on every poll of every open view.
    LOG.debug("Fleet read: agents {} ms ({} devices), queued runs {} ms, cohort flags {} ms, table {} ms, pushed"
        + " devices {} ms", ms(agentsRead - started), table.counts().devices(), ms(queuedRead - agentsRead),
        ms(cohortRead - queuedRead), ms(tabled - cohortRead), ms(System.nanoTime() - tabled));
    return new Read(table, cohort, pushed, certificates, health);
  }

  /** Certificates near expiry; none where the coordinator cannot say (one that serves no such list keeps the view). */
  private static List<ExpiringCertificate> certificates(CoordinatorClient coordinator) {
    try {
      return coordinator.certificatesNearExpiry();
    } catch (CoordinatorException e) {
      LOG.debug("certificates near expiry not read: {}", e.getMessage());
      return List.of();
    }
  }

  /** The warning the view shows, one sentence per certificate; empty when none is near expiry. */
  static String certificateWarning(List<ExpiringCertificate> near) {
    return near.stream().map(c -> "\u26a0 The " + c.role() + " certificate " + c.subject() + (c.daysLeft() < 0
        ? " expired on " + DAY.format(c.notAfter()) : " expires in " + c.daysLeft() + " day" + (c.daysLeft() == 1 ? ""
        : "s") + " (" + DAY.format(c.notAfter()) + ")") + ": renew it with ./busload certs renew.")
        .collect(Collectors.joining(" "));
  }

  private static final DateTimeFormatter DAY = DateTimeFormatter.ISO_LOCAL_DATE.withZone(java.time.ZoneOffset.UTC);

  /**
   * Reads the fleet {@code rounds} times as an open does, and counts, groups and renders a page of its rows, outside
   * any browser and UI: the code an open runs is then loaded and compiled before a person opens the view
   * ({@link io.busload.dashboard.base.ui.FirstOpenWarmup}). An unreachable coordinator ends it quietly.
   */
  public static void warmUp(CoordinatorClient coordinator, int rounds) {
    try {
      for (int i = 0; i < rounds; i++) {
        FleetTable table = read(coordinator, true).table();
        table.counts();
        table.hosts();
        table.page(FleetTable.Filter.ALL, 0, PAGE);
        for (FleetTable.GroupBy by : FleetTable.GroupBy.values()) {
          table.groups(new FleetTable.Filter("", null, by, null));
        }
      }
    } catch (CoordinatorException e) {
      LOG.debug("Fleet view warm-up ended: {}", e.getMessage());
    }
  }

  /** The worst flag of each flagged device, in words, with how many more kernel cases are flagged. */
  static Map<String, String> marks(List<FlaggedDevice> flags) {
    Map<String, List<FlaggedDevice>> byDevice = flags.stream().collect(Collectors.groupingBy(FlaggedDevice::deviceId,
        java.util.LinkedHashMap::new, Collectors.toList()));
    Map<String, String> marks = new java.util.LinkedHashMap<>();
    byDevice.forEach((device, list) -> {
      FlaggedDevice worst = list.stream().max(java.util.Comparator.comparingDouble(f -> Math.abs(f.relative())))
          .orElseThrow();
      marks.put(device, "\u26a0 " + worst.sentence() + (list.size() > 1 ? " (and " + (list.size() - 1)
          + " more kernel case" + (list.size() > 2 ? "s" : "") + ")" : ""));
    });
    return marks;
  }

  /** The cell's part name, which the theme colours: a DEGRADED or FAILED verdict stands out; none for HEALTHY. */
  static String healthPart(io.busload.dashboard.coordinator.DeviceHealth h) {
    return h == null || h.state().equals("HEALTHY") ? null : "health-" + h.state().toLowerCase(java.util.Locale.ROOT);
  }

  private static long ms(long nanos) {
    return java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(nanos);
  }

  private static String formatTime(Instant instant) {
    return instant == null ? "" : TIME.format(instant);
  }
}
