package io.busload.dashboard.history.ui;

import com.vaadin.flow.component.button.Button;
import com.vaadin.flow.component.combobox.ComboBox;
import com.vaadin.flow.component.datetimepicker.DateTimePicker;
import com.vaadin.flow.component.grid.Grid;
import com.vaadin.flow.component.html.H4;
import com.vaadin.flow.component.html.Span;
import com.vaadin.flow.component.orderedlayout.FlexComponent;
import com.vaadin.flow.component.orderedlayout.HorizontalLayout;
import com.vaadin.flow.component.orderedlayout.VerticalLayout;
import com.vaadin.flow.component.textfield.TextField;
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
import io.busload.dashboard.coordinator.AcceptInput;
import io.busload.dashboard.coordinator.Annotations;
import io.busload.dashboard.coordinator.Change;
import io.busload.dashboard.coordinator.CoordinatorClient;
import io.busload.dashboard.coordinator.CoordinatorException;
import io.busload.dashboard.coordinator.HistoryPoint;
import io.busload.dashboard.echarts.ECharts;
import io.busload.dashboard.history.History;
import io.busload.dashboard.security.WriteAccess;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.springframework.security.access.AccessDeniedException;

/** A kernel's bandwidth over time per device, with regression and improvement markers and what changed. */
@Route(value = "history", layout = MainLayout.class)
@PageTitle("History | Busload")
@AnonymousAllowed
public class HistoryView extends VerticalLayout implements BeforeEnterObserver {
  /** Points drawn at most: the newest, of every device together (a year of nightly runs of 27 devices). */
  static final int POINT_LIMIT = 10_000;
  private static final String SEPARATOR = "  ";

  private final CoordinatorClient coordinator;
  private final ComboBox<String> kernel = new ComboBox<>("Kernel and parameters");
  private final ECharts chart = new ECharts();
  private final Grid<Change> changes = new Grid<>();
  private final CsvTable<Change> changesCsv = new CsvTable<>(changes, "regressions.csv");
  private final CoordinatorNotice notice = new CoordinatorNotice();
  private final WriteAccess access;
  private final ComboBox<String> acceptDevice = new ComboBox<>("Device");
  private final DateTimePicker acceptFrom = new DateTimePicker("From (UTC; empty: now)");
  private final TextField acceptWhy = new TextField("Why (required)");
  private final Button accept = new Button("Accept change");
  private final Span acceptMessage = new Span();

  public HistoryView(CoordinatorClient coordinator, WriteAccess access) {
    this.coordinator = coordinator;
    this.access = access;
    configureKernelChoice();
    configureChart();
    configureChanges();
    configureAccept();
    HorizontalLayout acceptRow = new HorizontalLayout(acceptDevice, acceptFrom, acceptWhy, accept);
    acceptRow.setDefaultVerticalComponentAlignment(FlexComponent.Alignment.BASELINE);
    add(kernel, notice, chart, changes, changesCsv.link(),
        new H4("Accept a change (a new driver, a replaced card): the baseline restarts there"), acceptRow,
        acceptMessage);
  }

  private void configureAccept() {
    acceptDevice.setId("accept-device");
    acceptFrom.setId("accept-from");
    acceptWhy.setId("accept-why");
    acceptWhy.setWidth("28em");
    accept.setId("accept-change");
    acceptMessage.setId("accept-message");
    accept.addClickListener(click -> acceptChange());
  }

  /** After the login check; the coordinator refuses a mark without a reason, and the message says so. */
  private void acceptChange() {
    String choice = kernel.getValue();
    if (choice == null) {
      return;
    }
    try {
      access.require("accept a change");
      String name = choice.substring(0, choice.indexOf(SEPARATOR));
      String params = choice.substring(choice.indexOf(SEPARATOR) + SEPARATOR.length());
      Instant from = acceptFrom.getValue() == null ? null : acceptFrom.getValue().toInstant(ZoneOffset.UTC);
      Annotations.Accepted mark = coordinator.acceptChange(new AcceptInput(acceptDevice.getValue(), name, params, from,
          acceptWhy.getValue(), access.userName()));
      acceptMessage.setText("Accepted by " + mark.acceptedBy() + ": the baseline of " + mark.deviceId() + " restarts at "
          + mark.from());
      acceptWhy.clear();
      show(choice);
    } catch (AccessDeniedException | CoordinatorException e) {
      acceptMessage.setText(e.getMessage());
    }
  }

  /** {@code ?kernel=K&params=P} opens that kernel's history (a link others can follow); else the first one. */
  @Override
  public void beforeEnter(BeforeEnterEvent event) {
    Map<String, List<String>> query = event.getLocation().getQueryParameters().getParameters();
    String wanted = query.containsKey("kernel")
        ? query.get("kernel").getFirst() + SEPARATOR + query.getOrDefault("params", List.of("")).getFirst() : null;
    offerKernels(wanted);
  }

  private void configureKernelChoice() {
    kernel.setId("history-kernel");
    kernel.setWidth("40em");
    kernel.addValueChangeListener(e -> {
      if (e.getValue() != null) {
        show(e.getValue());
        remember(e.getValue());
      }
    });
  }

  /** The choice in the address bar (replacing the entry, not adding one): the link opens this very chart. */
  private void remember(String choice) {
    String name = choice.substring(0, choice.indexOf(SEPARATOR));
    String params = choice.substring(choice.indexOf(SEPARATOR) + SEPARATOR.length());
    getUI().ifPresent(ui -> ui.getPage().getHistory().replaceState(null, new Location("history",
        QueryParameters.simple(new java.util.LinkedHashMap<>(Map.of("kernel", name, "params", params))))));
  }

  private void configureChart() {
    chart.setId("history-chart");
    chart.setHeight("460px");
  }

  private void configureChanges() {
    changes.setId("changes-grid");
    changesCsv.column("Measured at", c -> c.measuredAt().toString()).setAutoWidth(true);
    changesCsv.column("Kind", Change::kind).setAutoWidth(true);
    changesCsv.column("Device", Change::deviceId).setAutoWidth(true);
    changesCsv.column("Bandwidth", c -> ChartOptions.gigabytes(c.bandwidth()) + " GB/s").setAutoWidth(true);
    changesCsv.column("Change", c -> String.format("%+.1f%%", c.changeFraction() * 100)).setAutoWidth(true);
    changesCsv.column("Environment change", History::environment).setFlexGrow(1);
    changes.setAllRowsVisible(true);
  }

  private void offerKernels(String wanted) {
    try {
      // Every kernel and params with a valid result, from the coordinator's index: the newest 5,000 whole
      // results read before missed older kernels and cost a second at 1M stored.
      TreeSet<String> choices = new TreeSet<>();
      coordinator.kernels().forEach(k -> choices.add(k.kernel() + SEPARATOR + k.params()));
      if (wanted != null) {
        choices.add(wanted);
      }
      kernel.setItems(choices);
      if (!choices.isEmpty()) {
        kernel.setValue(wanted != null ? wanted : choices.first());
      }
    } catch (CoordinatorException e) {
      notice.show(e.getMessage());
    }
  }

  private void show(String choice) {
    String name = choice.substring(0, choice.indexOf(SEPARATOR));
    String params = choice.substring(choice.indexOf(SEPARATOR) + SEPARATOR.length());
    try {
      List<HistoryPoint> points = coordinator.history(name, params, POINT_LIMIT);
      List<Change> found = coordinator.changes(null, name, 1_000).stream()
          .filter(c -> params.equals(c.params())).toList();
      chart.setOption(History.option(name, params, points, found, coordinator.annotations(name, params)));
      String device = acceptDevice.getValue();
      TreeSet<String> devices = new TreeSet<>();
      points.forEach(p -> devices.add(p.deviceId()));
      acceptDevice.setItems(devices);
      acceptDevice.setValue(device != null && devices.contains(device) ? device
          : devices.isEmpty() ? null : devices.first());
      changes.setItems(found);
      notice.clear();
    } catch (CoordinatorException e) {
      notice.show(e.getMessage());
    }
  }
}
