package io.busload.dashboard.schedules.ui;

import com.vaadin.flow.component.ComponentEvent;
import com.vaadin.flow.component.ComponentEventListener;
import com.vaadin.flow.component.button.Button;
import com.vaadin.flow.component.button.ButtonVariant;
import com.vaadin.flow.component.checkbox.Checkbox;
import com.vaadin.flow.component.combobox.ComboBox;
import com.vaadin.flow.component.formlayout.FormLayout;
import com.vaadin.flow.component.html.Span;
import com.vaadin.flow.component.orderedlayout.HorizontalLayout;
import com.vaadin.flow.component.orderedlayout.VerticalLayout;
import com.vaadin.flow.component.select.Select;
import com.vaadin.flow.component.textfield.TextField;
import com.vaadin.flow.data.value.ValueChangeMode;
import com.vaadin.flow.shared.Registration;
import io.busload.dashboard.coordinator.Device;
import io.busload.dashboard.coordinator.Schedule;
import io.busload.dashboard.coordinator.ScheduleInput;
import io.busload.dashboard.coordinator.Target;
import io.busload.dashboard.schedules.CronCheck;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Edits one schedule: the cron expression checked at each key stroke with its next fire times, and a target whose
 * matching devices are previewed. Tells the view what to do through typed events; it never calls the coordinator.
 */
class ScheduleForm extends VerticalLayout {
  static final int FIRES_SHOWN = 5;
  private static final DateTimeFormatter FIRE = DateTimeFormatter.ofPattern("EEE yyyy-MM-dd HH:mm z");

  private final TextField name = new TextField("Name");
  private final TextField cron = new TextField("Cron (minute hour day-of-month month day-of-week)");
  private final ComboBox<String> timeZone = new ComboBox<>("Time zone");
  private final TextField suite = new TextField("Suite");
  private final Checkbox paused = new Checkbox("Paused");
  private final Select<String> targetKind = new Select<>();
  private final ComboBox<String> targetValue = new ComboBox<>("Target value");
  private final Span nextFires = new Span();
  private final Span preview = new Span();
  private final Button save = new Button("Save");
  private final Button pause = new Button("Pause");
  private final Button delete = new Button("Delete");
  private final Button clear = new Button("New schedule");

  private List<Device> devices = List.of();
  private Schedule editing;

  /** What the form asks of the view about one schedule, by its {@code id}; always from the user, never the server. */
  abstract static class ScheduleEvent extends ComponentEvent<ScheduleForm> {
    final String id;

    ScheduleEvent(ScheduleForm form, String id) {
      super(form, false);
      this.id = id;
    }
  }

  /** Save the form's schedule: create when {@code id} is null. */
  static final class SaveEvent extends ScheduleEvent {
    final ScheduleInput input;

    SaveEvent(ScheduleForm form, String id, ScheduleInput input) {
      super(form, id);
      this.input = input;
    }
  }

  /** Pause or resume a stored schedule. */
  static final class PauseEvent extends ScheduleEvent {
    final boolean pause;

    PauseEvent(ScheduleForm form, String id, boolean pause) {
      super(form, id);
      this.pause = pause;
    }
  }

  /** Delete a stored schedule. */
  static final class DeleteEvent extends ScheduleEvent {
    DeleteEvent(ScheduleForm form, String id) {
      super(form, id);
    }
  }

  ScheduleForm() {
    configureFields();
    configureButtons();
    FormLayout fields = new FormLayout(name, cron, timeZone, suite, targetKind, targetValue, paused);
    fields.setResponsiveSteps(new FormLayout.ResponsiveStep("0", 1), new FormLayout.ResponsiveStep("40em", 2));
    add(fields, nextFires, preview, new HorizontalLayout(save, pause, delete, clear));
    edit(null);
  }

  private void configureFields() {
    name.setId("schedule-name");
    cron.setId("schedule-cron");
    cron.setValueChangeMode(ValueChangeMode.EAGER);
    cron.addValueChangeListener(e -> checkCron());
    timeZone.setId("schedule-zone");
    timeZone.setItems(new TreeSet<>(ZoneId.getAvailableZoneIds()));
    timeZone.addValueChangeListener(e -> checkCron());
    suite.setId("schedule-suite");
    targetKind.setLabel("Target");
    targetKind.setId("schedule-target-kind");
    targetKind.setItems(Target.ALL, Target.MODEL, Target.HOST, Target.DEVICE, Target.LABEL);
    targetKind.addValueChangeListener(e -> offerTargetValues());
    targetValue.setId("schedule-target-value");
    targetValue.setAllowCustomValue(true);
    targetValue.addCustomValueSetListener(e -> targetValue.setValue(e.getDetail()));
    targetValue.addValueChangeListener(e -> showPreview());
    nextFires.setId("schedule-next-fires");
    preview.setId("schedule-target-preview");
  }

  private void configureButtons() {
    save.setId("schedule-save");
    save.addThemeVariants(ButtonVariant.LUMO_PRIMARY);
    save.addClickListener(click -> fireEvent(new SaveEvent(this, editing == null ? null : editing.id(), input())));
    pause.setId("schedule-pause");
    pause.addClickListener(click -> fireEvent(new PauseEvent(this, editing.id(), !editing.paused())));
    delete.setId("schedule-delete");
    delete.addThemeVariants(ButtonVariant.LUMO_ERROR);
    delete.addClickListener(click -> fireEvent(new DeleteEvent(this, editing.id())));
    clear.setId("schedule-new");
    clear.addClickListener(click -> edit(null));
  }

  void offer(List<Device> known) {
    devices = List.copyOf(known);
    offerTargetValues();
  }

  /** Shows {@code schedule} for editing, or an empty form for a new one. */
  void edit(Schedule schedule) {
    editing = schedule;
    ScheduleInput input = schedule != null ? schedule.input()
        : new ScheduleInput("nightly stride", "0 3 * * *", "UTC", "stride", Map.of(), new Target(Target.ALL, null),
            false);
    name.setValue(nullToEmpty(input.name()));
    cron.setValue(nullToEmpty(input.cron()));
    timeZone.setValue(input.timeZone() == null ? "UTC" : input.timeZone());
    suite.setValue(nullToEmpty(input.suite()));
    paused.setValue(input.paused());
    Target target = input.target() == null ? new Target(Target.ALL, null) : input.target();
    targetKind.setValue(target.kind());
    targetValue.setValue(target.value());
    pause.setVisible(schedule != null);
    pause.setText(schedule != null && schedule.paused() ? "Resume" : "Pause");
    delete.setVisible(schedule != null);
    checkCron();
    showPreview();
  }

  private ScheduleInput input() {
    String kind = targetKind.getValue();
    return new ScheduleInput(name.getValue(), cron.getValue().trim(), timeZone.getValue(), suite.getValue().trim(),
        Map.of(), new Target(kind, Target.ALL.equals(kind) ? null : targetValue.getValue()), paused.getValue());
  }

  private static List<String> listOf(String value) {
    return value == null ? List.of() : List.of(value);
  }

  private void checkCron() {
    switch (CronCheck.check(cron.getValue(), timeZone.getValue(), ZonedDateTime.now(), FIRES_SHOWN)) {
      case CronCheck.Outcome.Valid valid -> {
        cron.setInvalid(false);
        nextFires.setText("Next fires: " + valid.nextFires().stream().map(FIRE::format)
            .collect(Collectors.joining(" · ")));
      }
      case CronCheck.Outcome.Invalid invalid -> {
        cron.setErrorMessage(invalid.message());
        cron.setInvalid(true);
        nextFires.setText("");
      }
    }
  }

  private void offerTargetValues() {
    String kind = targetKind.getValue();
    targetValue.setEnabled(kind != null && !Target.ALL.equals(kind));
    TreeSet<String> values = new TreeSet<>();
    for (Device device : devices) {
      List<String> offered = kind == null ? List.of() : switch (kind) {
        case Target.MODEL -> listOf(device.model());
        case Target.HOST -> listOf(device.host());
        case Target.DEVICE -> listOf(device.id());
        case Target.LABEL -> device.labels();
        default -> List.of();
      };
      values.addAll(offered);
    }
    String before = targetValue.getValue();
    targetValue.setItems(values);
    if (before != null && (values.contains(before) || !values.isEmpty())) {
      targetValue.setValue(before);
    }
    showPreview();
  }

  private void showPreview() {
    Target target = new Target(targetKind.getValue(), targetValue.getValue());
    List<String> matched = devices.stream().filter(target::matches).map(Device::id).sorted().toList();
    preview.setText(matched.isEmpty() ? "Matches no known device"
        : "Matches " + matched.size() + " device(s): " + String.join(", ", matched));
  }

  Registration addSaveListener(ComponentEventListener<SaveEvent> listener) {
    return addListener(SaveEvent.class, listener);
  }

  Registration addPauseListener(ComponentEventListener<PauseEvent> listener) {
    return addListener(PauseEvent.class, listener);
  }

  Registration addDeleteListener(ComponentEventListener<DeleteEvent> listener) {
    return addListener(DeleteEvent.class, listener);
  }

  private static String nullToEmpty(String value) {
    return value == null ? "" : value;
  }
}
