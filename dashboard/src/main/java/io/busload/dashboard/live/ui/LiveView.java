package io.busload.dashboard.live.ui;

import com.vaadin.flow.component.AttachEvent;
import com.vaadin.flow.component.DetachEvent;
import com.vaadin.flow.component.UI;
import com.vaadin.flow.component.button.Button;
import com.vaadin.flow.component.button.ButtonVariant;
import com.vaadin.flow.component.html.Span;
import com.vaadin.flow.component.orderedlayout.FlexComponent;
import com.vaadin.flow.component.orderedlayout.HorizontalLayout;
import com.vaadin.flow.component.orderedlayout.VerticalLayout;
import com.vaadin.flow.router.PageTitle;
import com.vaadin.flow.router.Route;
import com.vaadin.flow.shared.Registration;
import io.busload.dashboard.base.ui.CoordinatorNotice;
import io.busload.dashboard.cluster.LiveFeed;
import io.busload.dashboard.coordinator.CoordinatorClient;
import io.busload.dashboard.coordinator.CoordinatorException;
import io.busload.dashboard.coordinator.Sweep;
import io.busload.dashboard.coordinator.SweepStarted;
import io.busload.dashboard.base.ui.MainLayout;
import io.busload.dashboard.security.WriteAccess;
import com.vaadin.flow.server.auth.AnonymousAllowed;
import java.util.List;
import org.springframework.security.access.AccessDeniedException;
import io.busload.dashboard.live.Coalescer;
import io.busload.dashboard.live.StrideBandwidth;
import io.busload.protocol.KernelResult;
import io.busload.protocol.RunStatus;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Collectors;

/**
 * Bandwidth against stride for the latest sweep, from its stored results at load and growing by server push as
 * the coordinator publishes new ones.
 */
@Route(value = "", layout = MainLayout.class)
@PageTitle("Live | Busload")
@AnonymousAllowed
public class LiveView extends VerticalLayout {
  /** The stride suite is the one that exists (docs/contract.md, suites). */
  static final String SUITE = "stride";
  private static final int RESULT_LIMIT = 10_000;
  /**
   * Live results and run statuses are drawn in batches at most this often: with thousands of devices
   * reporting, one server push per result kept the browser busy with messages and redraws.
   */
  static final int FLUSH_MILLIS = 250;
  /** Above this many runs, the progress line counts runs by state instead of naming each device. */
  static final int RUNS_NAMED = 12;

  private final CoordinatorClient coordinator;
  private final LiveFeed feed;
  private final WriteAccess access;
  private final Map<String, RunStatus> runs = new LinkedHashMap<>();

  private final SweepChart strideChart = new SweepChart("bandwidth-chart", new StrideBandwidth());
  private final SweepChart offsetChart = new SweepChart("offset-chart",
      new StrideBandwidth("offset", "Bandwidth against offset", "offset (elements)", false));
  private final Button startSweep = new Button("Start sweep");
  private final Span sweepMessage = new Span();
  private final Span feedState = new Span();
  private final Span progress = new Span();
  private final CoordinatorNotice notice = new CoordinatorNotice();
  private Registration feedRegistration;
  private final Queue<KernelResult> arrived = new ConcurrentLinkedQueue<>();
  private final Queue<RunStatus> reported = new ConcurrentLinkedQueue<>();

  public LiveView(CoordinatorClient coordinator, LiveFeed feed, WriteAccess access) {
    this.coordinator = coordinator;
    this.feed = feed;
    this.access = access;
    configureStartButton();
    add(toolbar(), notice, progress, strideChart, offsetChart);
  }

  private void configureStartButton() {
    startSweep.setId("start-sweep");
    startSweep.addThemeVariants(ButtonVariant.LUMO_PRIMARY);
    startSweep.addClickListener(click -> startSweep());
    sweepMessage.setId("sweep-message");
    feedState.setId("feed-state");
    feedState.getStyle().set("color", "var(--lumo-secondary-text-color)");
    progress.setId("sweep-progress");
  }

  private HorizontalLayout toolbar() {
    HorizontalLayout toolbar = new HorizontalLayout(startSweep, sweepMessage, feedState);
    toolbar.setDefaultVerticalComponentAlignment(FlexComponent.Alignment.BASELINE);
    toolbar.setWidthFull();
    toolbar.expand(sweepMessage);
    return toolbar;
  }

  @Override
  protected void onAttach(AttachEvent attachEvent) {
    super.onAttach(attachEvent);
    UI ui = attachEvent.getUI();
    // Registered before loading, so a result stored while we read the sweep is still drawn (the model dedupes).
    Coalescer flush = new Coalescer(FLUSH_MILLIS, () -> ui.access(this::drain));
    feedRegistration = feed.register(new LiveFeed.Listener() {
      @Override
      public void result(KernelResult result) {
        arrived.add(result);
        flush.request();
      }

      @Override
      public void run(RunStatus status) {
        reported.add(status);
        flush.request();
      }
    });
    feed.ready().onComplete(done -> ui.access(this::showFeedState));
    showFeedState();
    loadLatestSweep();
  }

  @Override
  protected void onDetach(DetachEvent detachEvent) {
    if (feedRegistration != null) {
      feedRegistration.remove();
      feedRegistration = null;
    }
    super.onDetach(detachEvent);
  }

  private void loadLatestSweep() {
    try {
      Optional<Sweep> latest = coordinator.latestSweep();
      if (latest.isPresent()) {
        List<KernelResult> results = coordinator.results(latest.get().id(), RESULT_LIMIT);
        strideChart.load(latest.get().id(), results);
        offsetChart.load(latest.get().id(), results);
      }
      notice.clear();
    } catch (CoordinatorException e) {
      notice.show(e.getMessage() + ". Stored results cannot be shown; live results still appear here.");
    }
  }

  private void startSweep() {
    try {
      access.require("start a sweep");
      SweepStarted started = coordinator.startSweep(SUITE);
      sweepMessage.setText("Sweep " + started.id() + " started on " + started.runs().size() + " device(s)");
      notice.clear();
      runs.clear();
      strideChart.follow(started.id());
      offsetChart.follow(started.id());
      showProgress();
    } catch (CoordinatorException | AccessDeniedException e) {
      sweepMessage.setText("");
      notice.show("Could not start a sweep: " + e.getMessage());
    }
  }

  /** Draws what arrived since the last flush: results in one chart update each, statuses in one progress line. */
  private void drain() {
    List<KernelResult> results = new java.util.ArrayList<>();
    for (KernelResult r; (r = arrived.poll()) != null; ) {
      results.add(r);
    }
    if (!results.isEmpty()) {
      boolean newSweep = strideChart.showAll(results);
      newSweep |= offsetChart.showAll(results);
      if (newSweep) {
        runs.keySet().removeIf(device -> !Objects.equals(runs.get(device).sweepId(), model().sweepId()));
      }
    }
    boolean statuses = false;
    for (RunStatus status; (status = reported.poll()) != null; ) {
      if (model().sweepId() == null || Objects.equals(model().sweepId(), status.sweepId())) {
        runs.put(status.deviceId(), status);
        statuses = true;
      }
    }
    if (statuses || !results.isEmpty()) {
      showProgress();
    }
  }

  private StrideBandwidth model() {
    return strideChart.model();
  }

  private void showProgress() {
    if (runs.size() > RUNS_NAMED) {
      Map<String, Long> byState = runs.values().stream().collect(Collectors.groupingBy(s -> String.valueOf(s.state()),
          java.util.TreeMap::new, Collectors.counting()));
      long done = runs.values().stream().mapToLong(RunStatus::completed).sum();
      long total = runs.values().stream().mapToLong(RunStatus::total).sum();
      progress.setText(String.format("%,d devices: ", runs.size()) + byState.entrySet().stream()
          .map(e -> String.format("%,d %s", e.getValue(), e.getKey())).collect(Collectors.joining(", "))
          + String.format("; %,d of %,d kernels measured", done, total));
      return;
    }
    progress.setText(runs.values().stream()
        .map(s -> s.deviceId() + ": " + s.state() + " " + s.completed() + "/" + s.total()
            + (s.message() == null || s.message().isBlank() ? "" : " (" + s.message() + ")"))
        .collect(Collectors.joining(" · ")));
  }

  private void showFeedState() {
    feedState.setText(feed.state());
  }
}
