package io.busload.dashboard.history.ui;

import com.vaadin.flow.component.combobox.ComboBox;
import com.vaadin.flow.component.grid.Grid;
import com.vaadin.flow.component.orderedlayout.VerticalLayout;
import com.vaadin.flow.router.PageTitle;
import com.vaadin.flow.router.Route;
import com.vaadin.flow.server.auth.AnonymousAllowed;
import io.busload.dashboard.base.ui.ChartOptions;
import io.busload.dashboard.base.ui.CoordinatorNotice;
import io.busload.dashboard.base.ui.MainLayout;
import io.busload.dashboard.coordinator.Change;
import io.busload.dashboard.coordinator.CoordinatorClient;
import io.busload.dashboard.coordinator.CoordinatorException;
import io.busload.dashboard.coordinator.HistoryPoint;
import io.busload.dashboard.echarts.ECharts;
import io.busload.dashboard.history.History;
import com.vaadin.flow.router.BeforeEnterEvent;
import com.vaadin.flow.router.BeforeEnterObserver;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

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
  private final CoordinatorNotice notice = new CoordinatorNotice();

  public HistoryView(CoordinatorClient coordinator) {
    this.coordinator = coordinator;
    configureKernelChoice();
    configureChart();
    configureChanges();
    add(kernel, notice, chart, changes);
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
      }
    });
  }

  private void configureChart() {
    chart.setId("history-chart");
    chart.setHeight("460px");
  }

  private void configureChanges() {
    changes.setId("changes-grid");
    changes.addColumn(c -> c.measuredAt().toString()).setHeader("Measured at").setAutoWidth(true);
    changes.addColumn(Change::kind).setHeader("Kind").setAutoWidth(true);
    changes.addColumn(Change::deviceId).setHeader("Device").setAutoWidth(true);
    changes.addColumn(c -> ChartOptions.gigabytes(c.bandwidth()) + " GB/s").setHeader("Bandwidth").setAutoWidth(true);
    changes.addColumn(c -> String.format("%+.1f%%", c.changeFraction() * 100)).setHeader("Change").setAutoWidth(true);
    changes.addColumn(History::environment).setHeader("Environment change").setFlexGrow(1);
    changes.setAllRowsVisible(true);
  }

  private void offerKernels(String wanted) {
    try {
      // Every kernel and params with a valid result, from the coordinator's index: the newest 5,000 whole
      // results read before missed older kernels and cost a second at 1M stored (issue 5).
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
      chart.setOption(History.option(name, params, points, found));
      changes.setItems(found);
      notice.clear();
    } catch (CoordinatorException e) {
      notice.show(e.getMessage());
    }
  }
}
