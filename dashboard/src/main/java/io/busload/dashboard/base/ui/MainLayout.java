package io.busload.dashboard.base.ui;

import com.vaadin.flow.component.applayout.AppLayout;
import com.vaadin.flow.component.applayout.DrawerToggle;
import com.vaadin.flow.component.html.Span;
import com.vaadin.flow.component.sidenav.SideNav;
import com.vaadin.flow.component.sidenav.SideNavItem;
import io.busload.dashboard.fleet.ui.FleetView;
import io.busload.dashboard.live.ui.LiveView;

/** The frame around every view: the product name and one navigation entry per feature. */
public class MainLayout extends AppLayout {

  public MainLayout() {
    Span brand = new Span("Busload");
    brand.getStyle().set("font-weight", "600").set("font-size", "1.25rem");
    addToNavbar(new DrawerToggle(), brand);
    addToDrawer(navigation());
  }

  private static SideNav navigation() {
    SideNav nav = new SideNav();
    nav.addItem(new SideNavItem("Live", LiveView.class));
    nav.addItem(new SideNavItem("Fleet", FleetView.class));
    return nav;
  }
}
