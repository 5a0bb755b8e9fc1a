package io.busload.dashboard.base.ui;

import com.vaadin.flow.component.html.Div;

/**
 * A line that tells why a view is empty or stale: the coordinator unreachable or refusing, the live feed off.
 * Hidden while there is nothing to say, so a healthy view carries no clutter.
 */
public class CoordinatorNotice extends Div {

  public CoordinatorNotice() {
    setId("coordinator-notice");
    getElement().setAttribute("role", "alert");
    getStyle().set("color", "var(--lumo-error-text-color)")
        .set("background", "var(--lumo-error-color-10pct)")
        .set("padding", "var(--lumo-space-s) var(--lumo-space-m)")
        .set("border-radius", "var(--lumo-border-radius-m)");
    setVisible(false);
  }

  public void show(String message) {
    setText(message);
    setVisible(true);
  }

  public void clear() {
    setText("");
    setVisible(false);
  }
}
