package io.busload.dashboard.base.ui;

import com.vaadin.flow.component.applayout.AppLayout;
import com.vaadin.flow.component.applayout.DrawerToggle;
import com.vaadin.flow.component.button.Button;
import com.vaadin.flow.component.button.ButtonVariant;
import com.vaadin.flow.component.html.Anchor;
import com.vaadin.flow.component.html.Span;
import com.vaadin.flow.component.orderedlayout.FlexComponent;
import com.vaadin.flow.component.orderedlayout.HorizontalLayout;
import com.vaadin.flow.component.sidenav.SideNav;
import com.vaadin.flow.component.sidenav.SideNavItem;
import com.vaadin.flow.server.auth.AnonymousAllowed;
import io.busload.dashboard.compare.ui.CompareView;
import io.busload.dashboard.fleet.ui.FleetView;
import io.busload.dashboard.history.ui.HistoryView;
import io.busload.dashboard.live.ui.LiveView;
import io.busload.dashboard.run.ui.RunView;
import io.busload.dashboard.schedules.ui.SchedulesView;
import io.busload.dashboard.settings.ui.SettingsView;
import io.busload.dashboard.security.WriteAccess;

/** The frame around every view: the product name, who is logged in, one navigation entry per feature. */
@AnonymousAllowed
public class MainLayout extends AppLayout {

  public MainLayout(WriteAccess access) {
    Span brand = new Span("Busload");
    brand.getStyle().set("font-weight", "600").set("font-size", "1.25rem");
    HorizontalLayout bar = new HorizontalLayout(new DrawerToggle(), brand, account(access));
    bar.setWidthFull();
    bar.setDefaultVerticalComponentAlignment(FlexComponent.Alignment.CENTER);
    bar.expand(brand);
    bar.getStyle().set("padding-right", "var(--lumo-space-m)");
    addToNavbar(bar);
    addToDrawer(navigation());
  }

  private static HorizontalLayout account(WriteAccess access) {
    String user = access.userName();
    if (user == null) {
      Anchor login = new Anchor("login", "Log in");
      login.setId("login-link");
      login.setRouterIgnore(true);
      return new HorizontalLayout(new Span("viewing"), login);
    }
    Button logout = new Button("Log out", click -> access.logout());
    logout.setId("logout");
    logout.addThemeVariants(ButtonVariant.LUMO_TERTIARY);
    Span name = new Span(user);
    name.setId("user-name");
    HorizontalLayout account = new HorizontalLayout(name, logout);
    account.setDefaultVerticalComponentAlignment(FlexComponent.Alignment.CENTER);
    return account;
  }

  private static SideNav navigation() {
    SideNav nav = new SideNav();
    nav.addItem(new SideNavItem("Live", LiveView.class));
    nav.addItem(new SideNavItem("Fleet", FleetView.class));
    nav.addItem(new SideNavItem("Compare", CompareView.class));
    nav.addItem(new SideNavItem("History", HistoryView.class));
    nav.addItem(new SideNavItem("Runs", RunView.class));
    nav.addItem(new SideNavItem("Schedules", SchedulesView.class));
    nav.addItem(new SideNavItem("Settings", SettingsView.class));
    return nav;
  }
}
