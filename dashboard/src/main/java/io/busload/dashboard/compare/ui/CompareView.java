package io.busload.dashboard.compare.ui;

import com.vaadin.flow.component.grid.Grid;
import com.vaadin.flow.component.html.H4;
import com.vaadin.flow.component.orderedlayout.VerticalLayout;
import com.vaadin.flow.router.PageTitle;
import com.vaadin.flow.router.Route;
import com.vaadin.flow.server.auth.AnonymousAllowed;
import io.busload.dashboard.base.ui.CoordinatorNotice;
import io.busload.dashboard.base.ui.MainLayout;
import io.busload.dashboard.compare.Comparison;
import io.busload.dashboard.compare.Comparison.Subject;
import io.busload.dashboard.compare.PublishedFigures;
import io.busload.dashboard.coordinator.CoordinatorClient;
import io.busload.dashboard.coordinator.CoordinatorException;
import io.busload.dashboard.echarts.ECharts;
import java.util.ArrayList;
import java.util.List;

/**
 * Devices or device models side by side: grouped bars per kernel family (naive, coalesced, best), absolute or as a
 * fraction of each device's own ceiling, optionally beside published figures that are labelled as such.
 */
@Route(value = "compare", layout = MainLayout.class)
@PageTitle("Compare | Busload")
@AnonymousAllowed
public class CompareView extends VerticalLayout {
  private final CoordinatorClient coordinator;
  private final List<PublishedFigures.Figure> published = PublishedFigures.load();
  private final ComparePicker picker = new ComparePicker();
  private final ECharts chart = new ECharts();
  private final H4 publishedTitle = new H4("Published figures (not measured by Busload; source in each row)");
  private final Grid<PublishedFigures.Figure> publishedGrid = new Grid<>();
  private final CoordinatorNotice notice = new CoordinatorNotice();

  public CompareView(CoordinatorClient coordinator) {
    this.coordinator = coordinator;
    configurePicker();
    configureChart();
    configurePublishedTable();
    add(picker, notice, chart, publishedTitle, publishedGrid);
    offerDevices();
  }

  private void configurePicker() {
    picker.addChangedListener(changed -> show(changed.subjects(), changed.scale(), changed.published()));
  }

  private void configureChart() {
    chart.setId("compare-chart");
    chart.setHeight("480px");
  }

  private void configurePublishedTable() {
    publishedGrid.setId("published-grid");
    publishedGrid.addColumn(f -> "published").setHeader("Kind").setAutoWidth(true);
    publishedGrid.addColumn(PublishedFigures.Figure::source).setHeader("Source").setAutoWidth(true);
    publishedGrid.addColumn(PublishedFigures.Figure::device).setHeader("Device").setAutoWidth(true);
    publishedGrid.addColumn(PublishedFigures.Figure::family).setHeader("Family").setAutoWidth(true);
    publishedGrid.addColumn(f -> f.variant() + " " + f.parameter()).setHeader("Variant").setAutoWidth(true);
    publishedGrid.addColumn(f -> f.value() + " " + f.unit()).setHeader("Figure").setAutoWidth(true);
    publishedGrid.addColumn(PublishedFigures.Figure::note).setHeader("Note").setFlexGrow(1);
    publishedGrid.setAllRowsVisible(true);
    publishedTitle.setVisible(false);
    publishedGrid.setVisible(false);
  }

  private void offerDevices() {
    try {
      List<io.busload.dashboard.coordinator.Device> devices = new ArrayList<>(coordinator.devices());
      devices.addAll(coordinator.pushedDevices()); // results pushed from outside the fleet compare the same way
      picker.offer(devices);
    } catch (CoordinatorException e) {
      notice.show(e.getMessage());
    }
  }

  private void show(java.util.Set<String> chosen, Comparison.Scale scale, boolean withPublished) {
    try {
      List<Subject> subjects = new ArrayList<>();
      for (String choice : new java.util.TreeSet<>(chosen)) {
        // The newest valid result per kernel and params, chosen by the coordinator: reading a subject's newest
        // results and picking here took 5,000 whole results per device and seconds at 1M stored (issue 5).
        List<io.busload.protocol.KernelResult> latest = choice.startsWith(ComparePicker.MODEL)
            ? coordinator.latestResults(null, choice.substring(ComparePicker.MODEL.length()))
            : coordinator.latestResults(choice.substring(ComparePicker.DEVICE.length()), null);
        subjects.add(new Subject(choice, Comparison.latest(latest)));
      }
      chart.setOption(Comparison.option(subjects, scale, withPublished ? published : List.of()));
      List<PublishedFigures.Figure> rows = withPublished
          ? published : List.of();
      publishedGrid.setItems(rows);
      publishedTitle.setVisible(withPublished);
      publishedGrid.setVisible(withPublished);
      notice.clear();
    } catch (CoordinatorException e) {
      notice.show(e.getMessage());
    }
  }
}
