// SPDX-License-Identifier: GPL-2.0-or-later
// Wheel safety (ui/wheel_guard): over the Parameters panel, a wheel turn above a spin box,
// combo box or slider without the focus scrolls the panel and leaves the value alone; with
// the focus, it changes the value. The wheel is delivered as the window system delivers it:
// spontaneous, to the window, which hands it to the widget under the pointer (and
// QApplication on to its parents while none accepts it).
#include <QComboBox>
#include <QScrollArea>
#include <QScrollBar>
#include <QSlider>
#include <QSpinBox>
#include <QSpontaneKeyEvent>
#include <QUndoStack>
#include <QWheelEvent>
#include <QtTest>

#include "ui/engine_controller.h"
#include "ui/parameter_panel.h"
#include "ui/wheel_guard.h"

using namespace ringlab::ui;

class TstWheelGuard : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void init();
    void cleanup();
    void unfocusedControlsScrollThePanel();
    void focusedControlsTakeTheWheel();

  private:
    // Scrolls the panel so that `w` is in view, away from its edges.
    void bringIntoView(QWidget *w) { area_->ensureWidgetVisible(w, 0, 40); }
    // One notch of the wheel (down: negative) over the centre of `w`; false if `w` is not
    // what the pointer is over.
    bool wheelOver(QWidget *w, int notches)
    {
        QWidget *top = w->window();
        const QPoint local = w->mapTo(top, w->rect().center());
        QWidget *under = top->childAt(local);
        if (under != w && !w->isAncestorOf(under)) return false;
        QWheelEvent ev(local, top->mapToGlobal(QPointF(local)), QPoint(), QPoint(0, 120 * notches),
                       Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
        // As QTest sends keys: notify, not sendEvent, which would clear the flag.
        QSpontaneKeyEvent::setSpontaneous(&ev);
        qApp->notify(top->windowHandle(), &ev);
        return true;
    }
    // A notch down unless the panel is at its end, then up: the panel can always scroll.
    int notch() const
    {
        return area_->verticalScrollBar()->value() < area_->verticalScrollBar()->maximum() ? -1 : 1;
    }

    std::unique_ptr<EngineController> ctl_;
    std::unique_ptr<QUndoStack> undo_;
    std::unique_ptr<ParameterPanel> panel_;
    QScrollArea *area_ = nullptr;
};

void TstWheelGuard::initTestCase()
{
    WheelGuard::install(); // as ringlab's main does
}

void TstWheelGuard::init()
{
    ctl_ = std::make_unique<EngineController>();
    undo_ = std::make_unique<QUndoStack>();
    panel_ = std::make_unique<ParameterPanel>(ctl_.get(), undo_.get());
    panel_->resize(360, 400); // far shorter than its controls: it scrolls
    panel_->show();
    QVERIFY(QTest::qWaitForWindowActive(panel_.get()));
    area_ = panel_->findChild<QScrollArea *>();
    QVERIFY(area_);
    QVERIFY(area_->verticalScrollBar()->maximum() > 0);
    panel_->setFocus(); // on none of the controls
}

void TstWheelGuard::cleanup()
{
    panel_.reset();
    undo_.reset();
    ctl_.reset();
}

void TstWheelGuard::unfocusedControlsScrollThePanel()
{
    auto *batch = qobject_cast<QSpinBox *>(panel_->control("refill.batch"));
    auto *pool = qobject_cast<QSpinBox *>(panel_->control("rx.pool_buffers"));
    auto *mode = qobject_cast<QComboBox *>(panel_->control("poll.mode"));
    QVERIFY(batch && pool && mode);
    auto *slider = panel_->findChild<QSlider *>();
    QVERIFY(slider);
    const QList<QWidget *> controls{batch, pool, mode, slider};
    for (QWidget *w : controls)
        QCOMPARE(w->focusPolicy(), Qt::StrongFocus); // the wheel gives none of them the focus

    const int batchWas = batch->value(), poolWas = pool->value(), sliderWas = slider->value();
    const int modeWas = mode->currentIndex();
    for (QWidget *w : controls) {
        bringIntoView(w);
        const int n = notch();
        const int scrolled = area_->verticalScrollBar()->value();
        QVERIFY2(wheelOver(w, n), qPrintable(w->objectName() + " is not under the pointer"));
        QVERIFY2(
            area_->verticalScrollBar()->value() != scrolled,
            qPrintable(
                QString("the panel did not scroll over %1").arg(w->metaObject()->className())));
        QVERIFY(!w->hasFocus());
    }
    QCOMPARE(batch->value(), batchWas);
    QCOMPARE(pool->value(), poolWas);
    QCOMPARE(mode->currentIndex(), modeWas);
    QCOMPARE(slider->value(), sliderWas);
    QVERIFY(!panel_->isHeld("refill.batch") && !panel_->isHeld("rx.pool_buffers"));
    QCOMPARE(undo_->count(), 0); // nothing was edited
}

void TstWheelGuard::focusedControlsTakeTheWheel()
{
    auto *batch = qobject_cast<QSpinBox *>(panel_->control("refill.batch"));
    auto *mode = qobject_cast<QComboBox *>(panel_->control("poll.mode"));
    QVERIFY(batch && mode);
    batch->setFocus(Qt::TabFocusReason);
    QTRY_VERIFY(batch->hasFocus());
    bringIntoView(batch);
    const int was = batch->value();
    const int n = batch->value() < batch->maximum() ? 1 : -1;
    const int scrolled = area_->verticalScrollBar()->value();
    QVERIFY(wheelOver(batch, n));
    QVERIFY2(n > 0 ? batch->value() > was : batch->value() < was,
             qPrintable(QString("%1 -> %2").arg(was).arg(batch->value())));
    QCOMPARE(area_->verticalScrollBar()->value(), scrolled); // the spin box had it

    bringIntoView(mode);
    mode->setFocus(Qt::TabFocusReason);
    QTRY_VERIFY(mode->hasFocus());
    const int index = mode->currentIndex();
    const int m = index + 1 < mode->count() ? -1 : 1; // down the list, unless at its end
    QVERIFY(wheelOver(mode, m));
    QCOMPARE(mode->currentIndex(), index - m);
}

QTEST_MAIN(TstWheelGuard)
#include "tst_wheel_guard.moc"
