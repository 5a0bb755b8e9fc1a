package io.busload.dashboard.compare.ui;

import com.vaadin.flow.component.ComponentEvent;
import com.vaadin.flow.component.checkbox.Checkbox;
import com.vaadin.flow.component.combobox.MultiSelectComboBox;
import com.vaadin.flow.component.orderedlayout.FlexComponent;
import com.vaadin.flow.component.orderedlayout.HorizontalLayout;
import com.vaadin.flow.component.radiobutton.RadioButtonGroup;
import com.vaadin.flow.shared.Registration;
import io.busload.dashboard.compare.CompareChart.Scale;
import io.busload.dashboard.coordinator.Device;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/** What to compare: devices or device models, the scale, and whether published figures stand beside them. */
class ComparePicker extends HorizontalLayout {
  static final String DEVICE = "device: ";
  static final String MODEL = "model: ";

  private final MultiSelectComboBox<String> subjects = new MultiSelectComboBox<>("Devices or device models");
  private final RadioButtonGroup<Scale> scale = new RadioButtonGroup<>("Scale");
  private final Checkbox published = new Checkbox("Show published figures (labelled, with source)");

  /** The picker changed; the view reloads. */
  static class Changed extends ComponentEvent<ComparePicker> {
    Changed(ComparePicker source) {
      super(source, false);
    }

    Set<String> subjects() {
      return getSource().subjects.getValue();
    }

    Scale scale() {
      return getSource().scale.getValue();
    }

    boolean published() {
      return getSource().published.getValue();
    }
  }

  ComparePicker() {
    subjects.setId("compare-subjects");
    subjects.setWidth("32em");
    scale.setId("compare-scale");
    scale.setItems(Scale.values());
    scale.setItemLabelGenerator(s -> s.unit);
    scale.setValue(Scale.ABSOLUTE);
    published.setId("compare-published");
    subjects.addValueChangeListener(e -> fireEvent(new Changed(this)));
    scale.addValueChangeListener(e -> fireEvent(new Changed(this)));
    published.addValueChangeListener(e -> fireEvent(new Changed(this)));
    setDefaultVerticalComponentAlignment(FlexComponent.Alignment.BASELINE);
    add(subjects, scale, published);
  }

  /**
   * Offers every device and every model and selects {@code wanted} (a shared link's choice; subjects no longer known
   * are offered too, so the link still shows what it named), or all devices the first time, so the view opens with
   * bars.
   */
  void offer(List<Device> devices, Set<String> wanted) {
    Set<String> items = new TreeSet<>();
    devices.forEach(d -> {
      items.add(DEVICE + d.id());
      items.add(MODEL + d.model());
    });
    items.addAll(wanted);
    Set<String> before = subjects.getValue();
    subjects.setItems(items);
    if (!wanted.isEmpty()) {
      subjects.setValue(wanted);
    } else if (before.isEmpty()) {
      subjects.setValue(firstSelection(devices));
    } else {
      subjects.setValue(before);
    }
  }

  /**
   * A subject as a link names it, in the picker's words: "device: ID" or "model: NAME"; a bare id (or "device:ID")
   * is a device.
   */
  static String subject(String named) {
    String s = named.strip();
    if (s.startsWith(DEVICE) || s.startsWith(MODEL)) {
      return s;
    }
    if (s.startsWith("device:") || s.startsWith("model:")) {
      int colon = s.indexOf(':');
      return s.substring(0, colon + 1) + " " + s.substring(colon + 1).strip();
    }
    return DEVICE + s;
  }

  /** The scale and the published figures as a shared link names them. */
  void show(Scale wantedScale, boolean withPublished) {
    scale.setValue(wantedScale);
    published.setValue(withPublished);
  }

  Set<String> subjects() {
    return subjects.getValue();
  }

  Scale scale() {
    return scale.getValue();
  }

  boolean published() {
    return published.getValue();
  }

  /**
   * Every device; but a device id that stands for several models (results pushed from two hosts of one name, as the
   * lent H100 and H200, both "vm") is shown as its models, so they stand side by side, not as one bar.
   */
  static Set<String> firstSelection(List<Device> devices) {
    var modelsById = devices.stream().collect(java.util.stream.Collectors.groupingBy(Device::id,
        java.util.stream.Collectors.mapping(Device::model, java.util.stream.Collectors.toCollection(TreeSet::new))));
    Set<String> chosen = new TreeSet<>();
    modelsById.forEach((id, models) -> {
      if (models.size() == 1) {
        chosen.add(DEVICE + id);
      } else {
        models.forEach(model -> chosen.add(MODEL + model));
      }
    });
    return chosen;
  }

  Registration addChangedListener(com.vaadin.flow.component.ComponentEventListener<Changed> listener) {
    return addListener(Changed.class, listener);
  }
}
