package io.busload.dashboard.settings.ui;

import com.vaadin.flow.component.grid.Grid;
import com.vaadin.flow.component.html.H3;
import com.vaadin.flow.component.html.Span;
import com.vaadin.flow.component.orderedlayout.VerticalLayout;
import com.vaadin.flow.router.PageTitle;
import com.vaadin.flow.router.Route;
import com.vaadin.flow.server.auth.AnonymousAllowed;
import io.busload.dashboard.base.ui.CoordinatorNotice;
import io.busload.dashboard.base.ui.MainLayout;
import io.busload.dashboard.coordinator.CoordinatorClient;
import io.busload.dashboard.coordinator.CoordinatorException;
import io.busload.dashboard.coordinator.NotificationDelivery;
import io.busload.dashboard.coordinator.NotificationTarget;
import io.busload.dashboard.security.WriteAccess;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.springframework.security.access.AccessDeniedException;

/**
 * Settings: the notification targets (their secrets only named) and the delivery log. The coordinator answers these
 * reads only with the dashboard's API token, so the view shows them only to a logged-in OPERATOR or ADMIN: an
 * anonymous visitor would otherwise read, through the dashboard's token, what the API keeps from anonymous clients.
 * Targets are added with the REST API (README, "Be told what changed").
 */
@Route(value = "settings", layout = MainLayout.class)
@PageTitle("Settings | Busload")
@AnonymousAllowed
public class SettingsView extends VerticalLayout {
  static final int DELIVERIES_SHOWN = 200;
  private final Grid<NotificationTarget> targets = new Grid<>();
  private final Grid<NotificationDelivery> deliveries = new Grid<>();
  private final Span message = new Span();
  private final CoordinatorNotice notice = new CoordinatorNotice();

  public SettingsView(CoordinatorClient coordinator, WriteAccess access) {
    configureGrids();
    message.setId("settings-message");
    add(notice, message, new H3("Notification targets"), targets, new H3("Delivery log"), deliveries);
    try {
      access.require("see notification targets");
      targets.setItems(coordinator.notificationTargets());
      deliveries.setItems(coordinator.notificationDeliveries(DELIVERIES_SHOWN));
      notice.clear();
    } catch (AccessDeniedException e) {
      message.setText(e.getMessage());
    } catch (CoordinatorException e) {
      notice.show(e.getMessage());
    }
  }

  private void configureGrids() {
    targets.setId("notification-targets");
    targets.addColumn(NotificationTarget::name).setHeader("Name").setAutoWidth(true);
    targets.addColumn(NotificationTarget::kind).setHeader("Kind").setAutoWidth(true);
    targets.addColumn(t -> new TreeMap<>(t.settings()).entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
        .collect(Collectors.joining(", "))).setHeader("Settings").setAutoWidth(true);
    targets.addColumn(t -> t.secrets().keySet().stream().sorted().map(k -> k + " set")
        .collect(Collectors.joining(", "))).setHeader("Secrets").setAutoWidth(true);
    targets.addColumn(t -> filter(t.filter())).setHeader("Hears").setAutoWidth(true);
    targets.addColumn(NotificationTarget::quiet).setHeader("Quiet period").setAutoWidth(true);
    targets.setAllRowsVisible(true);
    deliveries.setId("notification-deliveries");
    deliveries.addColumn(d -> d.updatedAt() == null ? "" : d.updatedAt().toString()).setHeader("Updated (UTC)")
        .setAutoWidth(true);
    deliveries.addColumn(NotificationDelivery::targetName).setHeader("Target").setAutoWidth(true);
    deliveries.addColumn(NotificationDelivery::title).setHeader("Notice");
    deliveries.addColumn(NotificationDelivery::status).setHeader("Status").setAutoWidth(true);
    deliveries.addColumn(NotificationDelivery::attempts).setHeader("Attempts").setAutoWidth(true);
    deliveries.addColumn(d -> d.lastCode() == null ? "" : d.lastCode().toString()).setHeader("Reply code")
        .setAutoWidth(true);
    deliveries.addColumn(d -> d.lastError() == null ? "" : d.lastError()).setHeader("Error");
  }

  /** What a target hears, in a line. */
  public static String filter(NotificationTarget.Filter f) {
    if (f == null) {
      return "everything";
    }
    return (f.events().isEmpty() ? "every event" : String.join(", ", f.events())) + ", " + f.minSeverity()
        + " and above" + (f.labels().isEmpty() ? "" : ", labels " + String.join("/", f.labels()))
        + (f.models().isEmpty() ? "" : ", models " + String.join("/", f.models()));
  }
}
