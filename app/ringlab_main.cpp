// SPDX-License-Identifier: GPL-2.0-or-later
// ringlab: the desktop workbench. Also runs without a window for screenshots and for
// rendering a recorded session's charts to a file.
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QScreen>
#include <QSocketNotifier>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <string_view>

#include "app/cli_model.h"
#include "app/manual_pages.h"
#include "app/restore_command.h"
#include "drivers/registry.h"
#include "engine/common/duration.h"
#include "engine/git_revision.h"
#include "engine/store/session_store.h"
#include "engine/version.h"
#include "ui/chart_export.h"
#include "ui/connect_dialog.h"
#include "ui/engine_controller.h"
#include "ui/main_window.h"
#include "ui/remote_link.h"
#include "ui/wheel_guard.h"

using namespace ringlab;

namespace {
// SIGTERM, SIGINT and SIGHUP close the window like its close button, so a running session
// ends as completed: the handler only writes to a socket the event loop watches.
int signalFds[2] = {-1, -1};
void onSignal(int)
{
    const char c = 1;
    [[maybe_unused]] auto r = ::write(signalFds[0], &c, 1);
}
void closeOnSignals(QWidget *window)
{
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, signalFds) != 0) return;
    auto *notifier = new QSocketNotifier(signalFds[1], QSocketNotifier::Read, window);
    QObject::connect(notifier, &QSocketNotifier::activated, window, [window] {
        char c;
        [[maybe_unused]] auto r = ::read(signalFds[1], &c, 1);
        window->close();
        QCoreApplication::quit();
    });
    struct sigaction sa {};
    sa.sa_handler = onSignal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    for (int sig : {SIGTERM, SIGINT, SIGHUP})
        sigaction(sig, &sa, nullptr);
}

const QString kRenderHelp = QStringLiteral("Draw a recorded session's charts to a PNG or SVG file");

QList<QCommandLineOption> renderOptions()
{
    return {{{QStringLiteral("o"), QStringLiteral("output")},
             QStringLiteral("FILE.png or FILE.svg"),
             QStringLiteral("FILE")},
            {QStringLiteral("db"), QStringLiteral("session database"), QStringLiteral("FILE")},
            {QStringLiteral("size"), QStringLiteral("image size, e.g. 1200x900"),
             QStringLiteral("WxH"), QStringLiteral("1200x900")},
            {QStringLiteral("title"), QStringLiteral("a title above the charts"),
             QStringLiteral("TEXT")}};
}

void describeRender(QCommandLineParser &p)
{
    p.setApplicationDescription(kRenderHelp);
    p.addHelpOption();
    p.addPositionalArgument(QStringLiteral("render"), QStringLiteral("the command"));
    p.addPositionalArgument(QStringLiteral("SESSION"), QStringLiteral("session id"));
    p.addOptions(renderOptions());
}

int render(QApplication &app, const QStringList &args)
{
    QCommandLineParser p;
    describeRender(p);
    p.process(args);
    const QStringList pos = p.positionalArguments();
    bool ok = false;
    const qint64 id = pos.size() >= 2 ? pos[1].toLongLong(&ok) : 0;
    if (!ok || id <= 0 || !p.isSet(QStringLiteral("output"))) {
        std::fprintf(stderr, "ringlab: usage: ringlab render SESSION -o FILE.png|FILE.svg [--db "
                             "FILE] [--size WxH]\n");
        return 2;
    }
    const QStringList wh = p.value(QStringLiteral("size")).split('x');
    const QSize size(wh.value(0).toInt(), wh.value(1).toInt());
    if (size.width() < 200 || size.height() < 200) {
        std::fprintf(stderr, "ringlab: --size \"%s\": expected WxH, each at least 200\n",
                     qPrintable(p.value("size")));
        return 2;
    }
    const std::string db =
        p.isSet("db") ? p.value("db").toStdString() : SessionStore::defaultPath().string();
    if (!QFileInfo::exists(QString::fromStdString(db))) {
        std::fprintf(stderr, "ringlab: render: database %s does not exist (give --db FILE)\n",
                     db.c_str());
        return 2;
    }
    try {
        SessionStore store(db, Db::Mode::ReadWrite);
        if (const Status st = ui::renderSessionCharts(store, id, p.value(QStringLiteral("output")),
                                                      size, p.value(QStringLiteral("title")));
            !st.ok()) {
            std::fprintf(stderr, "ringlab: render: %s\n", st.error.c_str());
            return 1;
        }
    } catch (const DbError &e) {
        std::fprintf(stderr, "ringlab: %s\n", e.what());
        return 1;
    }
    Q_UNUSED(app);
    return 0;
}
const QString kDesktopHelp =
    QStringLiteral("Ringlab: tune a NIC driver's host side live and measure what it costs");

QList<QCommandLineOption> desktopOptions()
{
    QList<QCommandLineOption> p;
    p.append({QStringLiteral("profile"), QStringLiteral("profile name or .json file"),
              QStringLiteral("PROFILE")});
    p.append({QStringLiteral("db"), QStringLiteral("session database"), QStringLiteral("FILE")});
    p.append({QStringLiteral("screenshot"), QStringLiteral("run, save a PNG of the window, exit"),
              QStringLiteral("FILE")});
    p.append({QStringLiteral("duration"),
              QStringLiteral("with --screenshot: how long to run first"),
              QStringLiteral("DURATION"), QStringLiteral("5s")});
    p.append({QStringLiteral("size"), QStringLiteral("window size, e.g. 1280x800"),
              QStringLiteral("WxH")});
    p.append({QStringLiteral("device"),
              QString::fromLatin1(kDeviceSpecForms) + QStringLiteral(" (default: the profile's)"),
              QStringLiteral("SPEC")});
    p.append({QStringLiteral("eal"), QStringLiteral("extra DPDK EAL arguments"),
              QStringLiteral("ARGS")});
    p.append({QStringLiteral("traffic"),
              QStringLiteral("the lab device's traffic client, \"ping -i 0.01\" or \"iperf3 "
                             "-u -b 0 ...\" (sent with the lab only)"),
              QStringLiteral("CLIENT")});
    p.append({QStringLiteral("connect"),
              QStringLiteral("drive the engine `ringlab-engine serve` offers: unix:PATH on "
                             "this machine, or HOST:PORT or http(s)://HOST:PORT (with "
                             "--token-file)"),
              QStringLiteral("ADDRESS")});
    p.append({QStringLiteral("token-file"), QStringLiteral("the engine's token, for --connect"),
              QStringLiteral("FILE")});
    return p;
}

// The manual page's source: what QCommandLineParser prints for --help, as plain data.
CliOption cliOption(const QCommandLineOption &o)
{
    CliOption c;
    for (const QString &n : o.names())
        c.names.push_back((n.size() == 1 ? "-" : "--") + n.toStdString());
    std::sort(c.names.begin(), c.names.end(), [](const auto &a, const auto &b) {
        return a.size() > b.size(); // the long name first, as the engine's page has it
    });
    c.value = o.valueName().toStdString();
    c.help = o.description().toStdString();
    c.defaultText = o.defaultValues().join(',').toStdString();
    return c;
}

CliCommand desktopCli()
{
    CliCommand cli{"ringlab", kDesktopHelp.toStdString(), {}, {}};
    cli.options.push_back({{"--help", "-h"}, "", "Print the options and exit", "", {}});
    cli.options.push_back({{"--version", "-v"}, "", "Print the version and exit", "", {}});
    for (const auto &o : desktopOptions())
        cli.options.push_back(cliOption(o));
    CliCommand render{"render", kRenderHelp.toStdString(), {}, {}};
    for (const auto &o : renderOptions())
        render.options.push_back(cliOption(o));
    render.options.push_back({{"session"}, "", "Session id", "", {}, true, true});
    cli.commands.push_back(std::move(render));
    return cli;
}

QCommandLineOption manualOption()
{
    QCommandLineOption o(QStringLiteral("manual"), QStringLiteral("print the manual page (roff)"));
    o.setFlags(QCommandLineOption::HiddenFromHelp);
    return o;
}

void describe(QCommandLineParser &p)
{
    p.setApplicationDescription(kDesktopHelp);
    p.addHelpOption();
    p.addVersionOption();
    p.addOptions(desktopOptions());
    p.addOption(manualOption());
}

void setApplicationInfo()
{
    QCoreApplication::setApplicationName(QStringLiteral("ringlab"));
    QCoreApplication::setOrganizationName(QStringLiteral("ringlab"));
    // The reverse of RINGLAB_APP_ID's domain part (io.github.ringlab). The organisation's name
    // stays "ringlab": on Linux it names the settings' directory, ~/.config/ringlab.
    QCoreApplication::setOrganizationDomain(QStringLiteral("ringlab.github.io"));
    QCoreApplication::setApplicationVersion(
        QStringLiteral(RINGLAB_VERSION " (" RINGLAB_GIT_REVISION ")"));
}

// --help and --version need no display: they are answered before a QApplication connects
// to one (which fails, and aborts, without a display).
bool answeredWithoutDisplay(int argc, char **argv)
{
    bool asked = false;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (a == "--manual") {
            std::fputs(desktopManual(desktopCli()).c_str(), stdout);
            return true;
        }
        asked = asked || a == "--help" || a == "-h" || a == "-?" || a == "--help-all" ||
                a == "--version" || a == "-v";
    }
    if (!asked) return false;
    QCoreApplication core(argc, argv);
    setApplicationInfo();
    QCommandLineParser p;
    if (argc > 1 && std::string_view(argv[1]) == "render")
        describeRender(p);
    else
        describe(p);
    p.process(core); // prints and exits
    return true;
}

// `render` draws into a file: on a machine without a display (a server, CI, ssh) it draws
// offscreen rather than abort in QApplication. A platform the user chose is kept.
void drawOffscreenWithoutDisplay(int argc, char **argv)
{
    if (argc < 2 || std::string_view(argv[1]) != "render") return;
    if (qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") &&
        qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
}

// --device, --eal and --traffic: the device the window starts. False, having said why, when
// they are refused.
bool applyDeviceOptions(ui::MainWindow &window, const QCommandLineParser &parser)
{
    DeviceOptions dev = window.controller()->device();
    if (parser.isSet("device")) dev.spec = parser.value("device").toStdString();
    dev.eal = splitEalArgs(parser.value("eal").toStdString());
    if (parser.isSet("traffic")) {
        // The lab's, whichever device starts: another device is never sent it.
        if (auto st = checkTraffic(parser.value("traffic").toStdString()); !st.ok()) {
            std::fprintf(stderr, "ringlab: %s\n", st.error.c_str());
            return false;
        }
        window.setLabTraffic(parser.value("traffic"));
    }
    dev.traffic = takesTraffic(dev.spec) ? window.labTraffic().toStdString() : std::string();
    if (auto st = checkDeviceOptions(dev); !st.ok()) {
        std::fprintf(stderr, "ringlab: %s\n", st.error.c_str());
        return false;
    }
    window.controller()->setDevice(dev);
    window.selectDevice(dev.spec);
    return true;
}

// --size (or the screenshot's default): the window's size. False, having said why, when it
// is not a window size.
bool sizeWindow(ui::MainWindow &window, const QCommandLineParser &parser)
{
    if (parser.isSet("size")) {
        const QStringList wh = parser.value("size").split('x');
        bool okW = false, okH = false;
        const int width = wh.value(0).toInt(&okW), height = wh.value(1).toInt(&okH);
        constexpr int kMin = 320, kMax = 16384;
        if (wh.size() != 2 || !okW || !okH || width < kMin || height < kMin || width > kMax ||
            height > kMax) {
            std::fprintf(stderr,
                         "ringlab: --size \"%s\" is not a window size (allowed: WIDTHxHEIGHT, "
                         "each %d..%d, e.g. 1280x800)\n",
                         qPrintable(parser.value("size")), kMin, kMax);
            return false;
        }
        window.resize(width, height);
        // Keep it on the screen: the first start centres a window of another size.
        if (const QScreen *screen = window.screen()) {
            const QRect avail = screen->availableGeometry();
            window.move(
                std::clamp(window.x(), avail.left(), std::max(avail.left(), avail.right() - width)),
                std::clamp(window.y(), avail.top(),
                           std::max(avail.top(), avail.bottom() - height)));
        }
    } else if (parser.isSet("screenshot")) {
        window.resize(1280, 800);
    }
    return true;
}

// --connect: the engine the window drives, at once, or `askConnect` for the Connect dialog
// (no token given). The exit code when it fails, else 0.
int connectFromCommandLine(ui::MainWindow &window, const QCommandLineParser &parser,
                           QUrl &askConnect)
{
    const QUrl url = ui::ConnectDialog::parseAddress(parser.value("connect"));
    QString error;
    QByteArray token;
    if (!url.isValid())
        error = QStringLiteral("--connect \"%1\" is not an engine's address (allowed: "
                               "unix:PATH, HOST:PORT or http(s)://HOST:PORT)")
                    .arg(parser.value("connect"));
    else if (ui::RemoteLink::isLocalSocket(url))
        ; // a socket needs no token: its group decides
    else if (parser.isSet("token-file"))
        if (const auto read = ui::ConnectDialog::readToken(parser.value("token-file")); read.ok())
            token = read.value();
        else
            error = ui::errorText(read.status());
    else if (parser.isSet("screenshot"))
        error = QStringLiteral("--connect needs --token-file without a window to ask in");
    if (!error.isEmpty()) {
        std::fprintf(stderr, "ringlab: %s\n", qPrintable(error));
        return 2;
    }
    if (token.isEmpty() && !ui::RemoteLink::isLocalSocket(url))
        askConnect = url;
    else if (const Status st = window.connectToEngine(url, token); !st.ok()) {
        std::fprintf(stderr, "ringlab: cannot connect: %s\n", st.error.c_str());
        return 1;
    }
    return 0;
}

// --screenshot: runs for --duration, saves the window as a PNG and exits; the exit code.
int takeScreenshot(ui::MainWindow &window, const QCommandLineParser &parser)
{
    const auto ns = parseDurationNs(parser.value("duration").toStdString());
    if (!ns) {
        std::fprintf(stderr, "ringlab: --duration \"%s\" is not a duration (use e.g. 5s, 500ms)\n",
                     qPrintable(parser.value("duration")));
        return 2;
    }
    const QString file = parser.value("screenshot");
    if (!window.startRun()) return 1;
    int rc = 0;
    QTimer::singleShot(static_cast<int>(*ns / 1'000'000), &window, [&] {
        window.stopRun();
        QCoreApplication::processEvents();
        if (!window.grab().save(file, "PNG")) {
            std::fprintf(stderr, "ringlab: cannot write %s\n", qPrintable(file));
            rc = 1;
        } else {
            std::fprintf(stderr, "ringlab: screenshot written to %s\n", qPrintable(file));
        }
        window.close();
        QCoreApplication::exit(rc);
    });
    return QApplication::exec() == 0 ? rc : 1;
}
} // namespace

int main(int argc, char **argv)
{
    if (answeredWithoutDisplay(argc, argv)) return 0;
    drawOffscreenWithoutDisplay(argc, argv);
    QApplication app(argc, argv);
    Q_INIT_RESOURCE(ringlab); // the icons, linked in from the static ui library
    setApplicationInfo();
    QApplication::setDesktopFileName(QStringLiteral(RINGLAB_APP_ID));
    // Spin boxes, combo boxes and sliders take the wheel only when they have the focus.
    ui::WheelGuard::install();

    const QStringList args = QApplication::arguments();
    if (args.size() > 1 && args[1] == QLatin1String("render")) return render(app, args);

    QCommandLineParser p;
    describe(p);
    p.process(app);

    if (p.isSet("db")) {
        // SQLite would take these for a database that is gone when the window closes.
        const QString db = p.value("db");
        if (db.isEmpty() || db == QLatin1String(":memory:") || db.startsWith("file:")) {
            std::fprintf(stderr, "ringlab: --db \"%s\": %s\n", qPrintable(db),
                         db.isEmpty() ? "names no file (leave --db out for the default database)"
                                      : "an in-memory or URI database keeps nothing once the "
                                        "program ends: give a file");
            return 2;
        }
    }
    // The window's engine may change host settings (the kernel device): what a killed run
    // left changed goes back first, as at the start of `ringlab-engine run`.
    restoreLeftovers();
    ui::MainWindow w(p.value("db")); // empty: the settings' database, or the default
    w.setHeadless(p.isSet("screenshot"));
    if (p.isSet("profile")) {
        if (const Status st = w.loadProfile(p.value("profile")); !st.ok()) {
            std::fprintf(stderr, "ringlab: %s\n", st.error.c_str());
            return 2;
        }
    }
    if (p.isSet("device") || p.isSet("eal") || p.isSet("traffic"))
        if (!applyDeviceOptions(w, p)) return 2;
    if (!sizeWindow(w, p)) return 2;
    QUrl askConnect; // --connect without a token: the Connect dialog asks for it
    if (p.isSet("connect"))
        if (const int rc = connectFromCommandLine(w, p, askConnect); rc != 0) return rc;
    w.show();
    closeOnSignals(&w);
    if (askConnect.isValid())
        QTimer::singleShot(0, &w, [&w, askConnect] { w.chooseEngine(askConnect); });

    if (p.isSet("screenshot")) return takeScreenshot(w, p);
    return QApplication::exec();
}
