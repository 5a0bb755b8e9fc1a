package io.busload.dashboard.schedules.ui;

import com.vaadin.flow.component.grid.Grid;
import com.vaadin.flow.component.html.Span;
import com.vaadin.flow.component.orderedlayout.VerticalLayout;
import com.vaadin.flow.router.PageTitle;
import com.vaadin.flow.router.Route;
import com.vaadin.flow.server.auth.AnonymousAllowed;
import io.busload.dashboard.base.ui.CoordinatorNotice;
import io.busload.dashboard.base.ui.CsvTable;
import io.busload.dashboard.base.ui.MainLayout;
import io.busload.dashboard.coordinator.CoordinatorClient;
import io.busload.dashboard.coordinator.CoordinatorException;
import io.busload.dashboard.coordinator.Schedule;
import io.busload.dashboard.security.WriteAccess;
import org.springframework.security.access.AccessDeniedException;

/** Schedules: the list with next fire times, and a form to create, edit, pause and delete (logged in only). */
@Route(value = "schedules", layout = MainLayout.class)
@PageTitle("Schedules | Busload")
@AnonymousAllowed
public class SchedulesView extends VerticalLayout {
  private final CoordinatorClient coordinator;
  private final WriteAccess access;
  private final Grid<Schedule> grid = new Grid<>();
  private final CsvTable<Schedule> csv = new CsvTable<>(grid, "schedules.csv");
  private final ScheduleForm form = new ScheduleForm();
  private final Span message = new Span();
  private final CoordinatorNotice notice = new CoordinatorNotice();

  public SchedulesView(CoordinatorClient coordinator, WriteAccess access) {
    this.coordinator = coordinator;
    this.access = access;
    configureGrid();
    configureForm();
    add(notice, grid, csv.link(), form, message);
    refresh();
  }

  private void configureGrid() {
    grid.setId("schedules-grid");
    csv.column("Name", Schedule::name).setAutoWidth(true);
    csv.column("Cron", Schedule::cron).setAutoWidth(true);
    csv.column("Time zone", Schedule::timeZone).setAutoWidth(true);
    csv.column("Suite", Schedule::suite).setAutoWidth(true);
    csv.column("Target", s -> s.target() == null ? "all" : s.target().kind()
        + (s.target().value() == null ? "" : " = " + s.target().value())).setAutoWidth(true);
    csv.column("State", s -> s.paused() ? "paused" : "active").setAutoWidth(true);
    csv.column("Next fire (UTC)", s -> s.nextFireAt() == null ? "" : s.nextFireAt().toString())
        .setAutoWidth(true);
    grid.setAllRowsVisible(true);
    grid.asSingleSelect().addValueChangeListener(e -> form.edit(e.getValue()));
  }

  private void configureForm() {
    message.setId("schedule-message");
    form.addSaveListener(save -> write("save the schedule", () -> {
      Schedule saved = save.id == null ? coordinator.createSchedule(save.input)
          : coordinator.updateSchedule(save.id, save.input);
      return "Saved '" + saved.name() + "'; next fire " + saved.nextFireAt();
    }));
    form.addPauseListener(pause -> write((pause.pause ? "pause" : "resume") + " the schedule", () -> {
      Schedule changed = coordinator.pauseSchedule(pause.id, pause.pause);
      return (changed.paused() ? "Paused '" : "Resumed '") + changed.name() + "'";
    }));
    form.addDeleteListener(delete -> write("delete the schedule", () -> {
      coordinator.deleteSchedule(delete.id);
      return "Deleted";
    }));
  }

  /** Runs a change after the login check, showing what happened or why it was refused. */
  private void write(String what, java.util.function.Supplier<String> change) {
    try {
      access.require(what);
      message.setText(change.get());
      form.edit(null);
      refresh();
    } catch (AccessDeniedException | CoordinatorException e) {
      message.setText(e.getMessage());
    }
  }

  private void refresh() {
    try {
      grid.setItems(coordinator.schedules());
      form.offer(coordinator.devices());
      notice.clear();
    } catch (CoordinatorException e) {
      notice.show(e.getMessage());
    }
  }
}
