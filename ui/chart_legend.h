// SPDX-License-Identifier: GPL-2.0-or-later
// The legend beside a time chart: its title, a menu to choose the series and the axis
// scale, and one entry per chosen series with its colour and its value at the crosshair
// (or the newest value). Clicking an entry hides or shows its line. A widget of its own, of
// one fixed width for every chart, so that the plot areas line up.
#pragma once

#include <QFrame>
#include <QHash>
#include <optional>

class QLabel;
class QListWidget;
class QListWidgetItem;
class QMenu;
class QToolButton;

namespace ringlab::ui {

class ChartLegend : public QFrame {
    Q_OBJECT
  public:
    static constexpr int kWidth = 190;

    ChartLegend(const QString &title, QWidget *parent = nullptr);
    // Entries, in order; a hidden entry is drawn greyed.
    void setEntries(const QStringList &names, const QHash<QString, QColor> &colors,
                    const QHash<QString, bool> &dashed, const QHash<QString, bool> &hidden);
    void setValues(const QHash<QString, std::optional<double>> &values, const QString &unit);
    // The series the menu offers: every series this chart can show, chosen or not.
    void setChoices(const QStringList &all, const QStringList &chosen, bool log, bool canLog);
    // A few words after the title (the latency chart's sampling), with a tooltip; empty: none.
    void setNote(const QString &note, const QString &tooltip);
    QString titleText() const;
    QStringList entryNames() const;
    QString entryText(const QString &name) const;
    QMenu *menu(); // up to date (its rebuilds are deferred)
    // An exported image shows the entries only, not the Series button.
    void setControlsVisible(bool on);

  signals:
    void hiddenToggled(const QString &name);
    void chosenChanged(const QString &name, bool chosen);
    void logScaleToggled(bool log);

  private:
    void rebuildMenu();
    QLabel *title_;
    QString baseTitle_;
    QToolButton *button_;
    QMenu *menu_;
    QListWidget *list_;
    QHash<QString, QListWidgetItem *> items_;
    QStringList all_, chosen_;
    bool log_ = false, canLog_ = true;
    bool rebuildPending_ = false;
};

} // namespace ringlab::ui
