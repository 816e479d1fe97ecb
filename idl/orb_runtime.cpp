#include "idl/orb_runtime.hpp"

#include <dlfcn.h>
#include <netdb.h>
#include <omniORB4/omniInterceptors.h>
#include <omniORB4/omniPolicy.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>
#include <vector>

#include "common/errors.hpp"
#include "common/number_with_unit.hpp"

namespace kausal {

namespace {

// One ORB per process, so one delay per process (the interceptors are plain functions).
std::atomic<unsigned> link_delay_us{0};

// Holds a message back before it leaves over a network transport: Unix sockets are this
// host, not a link.
void delay_if_networked(const char* peer) {
  const unsigned us = link_delay_us.load(std::memory_order_relaxed);
  if (us == 0 || (peer && std::strncmp(peer, "giop:unix", 9) == 0)) return;
  std::this_thread::sleep_for(std::chrono::microseconds(us));
}

CORBA::Boolean delay_request(omni::omniInterceptors::clientSendRequest_T::info_T& info) {
  delay_if_networked(info.peeraddress());
  return true;
}

CORBA::Boolean delay_reply(omni::omniInterceptors::serverSendReply_T::info_T& info) {
  delay_if_networked(info.peeraddress());
  return true;
}

void install_link_delay(unsigned us) {
  if (us == 0) return;
  // Added once per process: a second ORB (there is none) would share the setting.
  if (link_delay_us.exchange(us) != 0) return;
  omni::omniInterceptors* interceptors = omniORB::getInterceptors();
  interceptors->clientSendRequest.add(delay_request);
  interceptors->serverSendReply.add(delay_reply);
}

using OrbOptions = std::vector<std::pair<std::string, std::string>>;

// A typo in a TLS option is bad input naming the option, not an SSL failure deep inside
// ORB_init.
void require_readable(const std::string& file, const std::string& option) {
  if (file.empty()) throw InputError("command line: " + option + " is required with --tls-ca");
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec) || access(file.c_str(), R_OK) != 0)
    throw InputError("command line: " + option + " " + file + ": no readable file there");
}

// omniORB's giop:ssl transport, loaded only by processes with TLS on. Linked into every
// process, it would warn on each start without TLS ("SSL CA certificate location is not set.
// SSL transport disabled."); loaded here, before ORB_init, its static initialiser registers
// the transport and its sslCAFile/sslKeyFile/... options with the ORB as linking would.
void load_ssl_transport() {
  if (dlopen(KAUSAL_OMNISSLTP, RTLD_NOW | RTLD_GLOBAL)) return;
  const char* why = dlerror();
  throw Error(ExitCode::peer_failure, std::string("TLS: cannot load omniORB's SSL transport ") +
                                          KAUSAL_OMNISSLTP + ": " + (why ? why : "?"));
}

// The ssl options set omniORB's sslContext statics (certificate_authority_file, key_file,
// key_file_password, verify_mode), which it reads in ORB_init.
void configure_tls(const TlsFiles& tls, const std::string& plain_tcp_peer, OrbOptions& opts) {
  require_readable(tls.ca_file, "--tls-ca");
  require_readable(tls.cert_file, "--tls-cert");
  load_ssl_transport();
  opts.push_back({"sslCAFile", tls.ca_file});
  opts.push_back({"sslKeyFile", tls.cert_file});
  // Always given, empty or not: without a password omniORB 4.2 does not load the private key
  // at all, and an empty one keeps OpenSSL from prompting for an encrypted key.
  opts.push_back({"sslKeyPassword", tls.password});
  // Both directions: a server refuses clients without a certificate from the CA
  // (SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT), and a client refuses such servers.
  opts.push_back({"sslVerifyMode", "peer,fail"});
  // Calls go out over ssl only, and a connection that arrives any other way is refused
  // (there is no other endpoint anyway; this covers a future one).
  // ssl first: nodes may serve on the naming service's address too.
  if (!plain_tcp_peer.empty()) opts.push_back({"clientTransportRule", plain_tcp_peer + " ssl,tcp"});
  opts.push_back({"clientTransportRule", "* ssl"});
  opts.push_back({"serverTransportRule", "* ssl"});
}

// Endpoints this process serves: TLS only when it is on, else a Unix socket (if given)
// beside TCP on one address.
void add_endpoints(const OrbSettings& s, OrbOptions& opts) {
  if (s.tls.enabled()) {
    opts.push_back({"endPoint", "giop:ssl:" + s.host + ":"});
    return;
  }
  if (!s.unix_socket.empty()) opts.push_back({"endPoint", "giop:unix:" + s.unix_socket});
  opts.push_back({"endPoint", "giop:tcp:" + s.host + ":"});
}

// Why a TCP socket cannot be bound to `host` (any port), or "" if it can.
std::string bind_problem(const std::string& host) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  if (const int rc = getaddrinfo(host.c_str(), "0", &hints, &found); rc != 0)
    return gai_strerror(rc);
  std::string problem = "no address";
  for (addrinfo* a = found; a && !problem.empty(); a = a->ai_next) {
    const int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      problem = std::strerror(errno);
      continue;
    }
    problem = bind(fd, a->ai_addr, a->ai_addrlen) == 0 ? "" : std::strerror(errno);
    close(fd);
  }
  freeaddrinfo(found);
  return problem;
}

// ORB_init's INITIALIZE with TLS on is a certificate, key or password that OpenSSL would not
// load (omniORB has logged OpenSSL's reason on stderr).
CORBA::ORB_ptr init_orb(const OrbOptions& opts, const TlsFiles& tls) {
  std::vector<const char*> flat;
  for (const auto& [k, v] : opts) {
    flat.push_back(k.c_str());
    flat.push_back(v.c_str());
  }
  flat.push_back(nullptr);
  flat.push_back(nullptr);
  int argc = 0;
  try {
    return CORBA::ORB_init(argc, nullptr, "omniORB4",
                           reinterpret_cast<const char*(*)[2]>(flat.data()));
  } catch (const CORBA::INITIALIZE&) {
    if (!tls.enabled()) throw;
    throw InputError("TLS: cannot set up with --tls-ca " + tls.ca_file + " --tls-cert " +
                     tls.cert_file +
                     " (not PEM certificates, no private key in the --tls-cert file, or a wrong "
                     "--tls-password; OpenSSL's reason is above)");
  }
}

}  // namespace

unsigned parse_delay_us(const std::string& text, const std::string& what) {
  const auto [value, unit] = number_with_unit(text).value_or(std::make_pair(0.0, std::string("?")));
  double scale = 0;
  if (unit == "ms")
    scale = 1000;
  else if (unit == "us")
    scale = 1;
  else if (unit == "s")
    scale = 1e6;
  else if (unit.empty() && value == 0)
    scale = 1;
  const double us = value * scale;
  if (scale == 0 || !std::isfinite(us) || us < 0 || us > 10e6)
    throw InputError((what.empty() ? "'" : what + ": '") + text +
                     "' is not a delay (a number with a unit: 2ms, 500us, 0.1s; 0 for none; at "
                     "most 10s)");
  return static_cast<unsigned>(std::lround(us));
}

unsigned link_delay_option(const std::string& text) {
  try {
    return parse_delay_us(text, "");
  } catch (const InputError& e) {
    // Thrown while CLI11 parses: reported (exit 2) like every other bad option.
    throw CLI::ValidationError("--link-delay", e.what());
  }
}

void add_orb_options(CLI::App& app, OrbSettings& s) {
  app.add_option("--host", s.host,
                 "address this process serves on (TCP or TLS); never all interfaces unless "
                 "0.0.0.0 is given")
      ->capture_default_str();
  app.add_option("--unix-socket", s.unix_socket, "path of a Unix-socket endpoint");
  app.add_option("--call-timeout-ms", s.call_timeout_ms, "timeout of calls this process makes")
      ->capture_default_str()
      ->check(CLI::Range(1u, 3'600'000u));
  app.add_option_function<std::string>(
      "--link-delay", [&s](const std::string& v) { s.link_delay_us = link_delay_option(v); },
      "hold back every message sent over TCP/TLS this long (emulates a slow network): 2ms, "
      "500us");
  add_tls_options(app, s.tls,
                  "TLS: CA certificate (PEM); with it, only giop:ssl is served and every peer "
                  "must present a certificate signed by this CA",
                  "this process's");
}

void add_tls_options(CLI::App& app, TlsFiles& tls, const std::string& ca_help,
                     const std::string& whose) {
  app.add_option("--tls-ca", tls.ca_file, ca_help);
  app.add_option("--tls-cert", tls.cert_file,
                 "TLS: " + whose + " certificate and private key (one PEM file)");
  app.add_option("--tls-password", tls.password, "TLS: password of the private key, if any");
}

namespace {

// Connections a serving process gives a thread of its own (omniORB's default policy and
// limit; the fastest: docs/performance.md); past this many it serves the rest from a pool of
// kPooledServerThreads. A thread per connection is what lets a caller who connects during a
// flood of connections be answered: in the pool, callers that send part of a request hold
// its threads until their connections are closed. An idle thread costs little memory (3,000
// connections to a System: under 256 MiB resident, hostile_calls_test).
constexpr unsigned kThreadPerConnectionUpTo = 10000;
constexpr unsigned kPooledServerThreads = 64;
// A connection to a serving process on which no call has passed for this long (and one
// whose caller sends part of a request and no more) is closed: two to four minutes later,
// at omniORB's scan. Far beyond the gaps of a run's own connections: the monitor's heartbeat
// passes over its connection to every component twice a second, and a caller whose idle
// connection was closed opens another for its next call.
constexpr unsigned kIdleConnectionSeconds = 120;

// What callers can hold of a serving process (docs/tls.md, "What a run without TLS
// trusts"): a request whose arguments have not all arrived within the call timeout closes
// its connection; threads are bounded as above; silent and slow connections end after
// kIdleConnectionSeconds; and the process may open as many files as its hard limit allows,
// so that a flood of connections meets that limit rather than the soft default of 1,024
// (past which no caller, legitimate or not, is accepted any more).
void bound_what_callers_hold(const OrbSettings& s, OrbOptions& opts) {
  opts.push_back({"serverCallTimeOutPeriod", std::to_string(s.call_timeout_ms)});
  opts.push_back({"inConScanPeriod", std::to_string(kIdleConnectionSeconds)});
  opts.push_back({"threadPerConnectionUpperLimit", std::to_string(kThreadPerConnectionUpTo)});
  opts.push_back(
      {"threadPerConnectionLowerLimit", std::to_string(kThreadPerConnectionUpTo * 7 / 8)});
  opts.push_back({"maxServerThreadPoolSize", std::to_string(kPooledServerThreads)});
  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    (void)setrlimit(RLIMIT_NOFILE, &files);  // best effort: the soft limit stands otherwise
  }
}

}  // namespace

std::vector<std::string> orb_arguments(const OrbSettings& s) {
  std::vector<std::string> args{"--host", s.host, "--call-timeout-ms",
                                std::to_string(s.call_timeout_ms)};
  if (s.link_delay_us > 0)
    args.insert(args.end(), {"--link-delay", std::to_string(s.link_delay_us) + "us"});
  if (s.tls.enabled()) {
    args.insert(args.end(), {"--tls-ca", s.tls.ca_file, "--tls-cert", s.tls.cert_file});
    if (!s.tls.password.empty()) args.insert(args.end(), {"--tls-password", s.tls.password});
  }
  return args;
}

OrbRuntime::OrbRuntime(const OrbSettings& s) : callers_authenticated_(s.serve && s.tls.enabled()) {
  OrbOptions opts = {
      {"clientCallTimeOutPeriod", std::to_string(s.call_timeout_ms)},
      // omniORB bounds a call that has to open a connection by this instead of the call
      // timeout: never longer than the call timeout, or a stopped peer would be found late.
      {"clientConnectTimeOutPeriod",
       std::to_string(std::min(s.connect_timeout_ms, s.call_timeout_ms))},
      // Off by default in omniORB 4.2: without it setClientThreadCallTimeout() does nothing
      // (the heartbeat's pings and a node's start() set their own per-thread timeouts).
      {"supportPerThreadTimeOut", "1"},
      {"outConScanPeriod", "0"},
      // State batches of optimistic runs can exceed the 2 MiB default.
      {"giopMaxMsgSize", std::to_string(256u << 20)},
  };
  if (s.tls.enabled())
    configure_tls(s.tls, s.plain_tcp_peer, opts);
  else if (!s.tls.cert_file.empty())
    throw InputError("command line: --tls-cert needs --tls-ca (without it TLS is off)");
  if (s.serve) {
    add_endpoints(s, opts);
    bound_what_callers_hold(s, opts);
  }
  try {
    orb_ = init_orb(opts, s.tls);
    install_link_delay(s.link_delay_us);
    // The endpoints are opened here, with the root POA.
    CORBA::Object_var root = orb_->resolve_initial_references("RootPOA");
    poa_ = PortableServer::POA::_narrow(root);
    if (s.serve) {
      PortableServer::POAManager_var manager = poa_->the_POAManager();
      manager->activate();
    }
  } catch (const CORBA::INITIALIZE&) {
    // Most often --host is not an address of this host: say so, naming it.
    if (const std::string problem = s.serve ? bind_problem(s.host) : ""; !problem.empty())
      throw InputError("--host " + s.host + ": cannot serve on this address (" + problem + ")");
    throw;
  }
}

OrbRuntime::~OrbRuntime() {
  try {
    orb_->destroy();
  } catch (...) {
    // Destroying a half-broken ORB at exit must not turn a clean error into a crash.
  }
}

std::string OrbRuntime::activate(PortableServer::ServantBase* servant) {
  PortableServer::ObjectId_var id = poa_->activate_object(servant);
  CORBA::Object_var ref = poa_->id_to_reference(id);
  CORBA::String_var ior = orb_->object_to_string(ref);
  return ior.in();
}

void OrbRuntime::deactivate(PortableServer::ServantBase* servant) {
  PortableServer::ObjectId_var id = poa_->servant_to_id(servant);
  poa_->deactivate_object(id);
}

CORBA::Object_ptr OrbRuntime::resolve(const std::string& ior) const {
  return orb_->string_to_object(ior.c_str());
}

bool OrbRuntime::serves_here(CORBA::Object_ptr ref) const {
  // reference_to_servant refuses (WrongAdapter) a reference whose object is not in this
  // address space, even if its key is one of this POA's.
  const auto active_in = [ref](PortableServer::POA_ptr poa) {
    try {
      const PortableServer::ServantBase_var servant = poa->reference_to_servant(ref);
      return true;
    } catch (const PortableServer::POA::WrongAdapter&) {
    } catch (const PortableServer::POA::ObjectNotActive&) {
    } catch (const PortableServer::POA::WrongPolicy&) {
    } catch (const CORBA::SystemException&) {
      // A POA being destroyed: not a place to call.
    }
    return false;
  };
  if (CORBA::is_nil(ref)) return false;
  if (active_in(poa_.in())) return true;
  PortableServer::POAList_var children = poa_->the_children();
  for (CORBA::ULong k = 0; k < children->length(); ++k)
    if (active_in(children[k].in())) return true;
  return false;
}

void OrbRuntime::run() {
  orb_->run();
}

void OrbRuntime::shutdown() {
  orb_->shutdown(false);
}

namespace {
std::atomic<unsigned> adapters{0};
}

CollocatedAdapter::CollocatedAdapter(OrbRuntime& orb, bool shortcut)
    : orb_(orb), shortcut_(shortcut) {
  CORBA::PolicyList policies;
  if (shortcut) {
    policies.length(1);
    policies[0] = omniPolicy::create_local_shortcut_policy(omniPolicy::LOCAL_CALLS_SHORTCUT);
  }
  PortableServer::POAManager_var manager = orb_.root_poa()->the_POAManager();
  // Unique per process: a compare run deploys several times in one ORB.
  const std::string name = "collocated-" + std::to_string(adapters.fetch_add(1));
  poa_ = orb_.root_poa()->create_POA(name.c_str(), manager, policies);
  for (CORBA::ULong k = 0; k < policies.length(); ++k) policies[k]->destroy();
}

CollocatedAdapter::~CollocatedAdapter() {
  try {
    poa_->destroy(false, true);
  } catch (...) {
    // At ORB shutdown the POA may already be gone.
  }
}

std::string CollocatedAdapter::activate(PortableServer::ServantBase* servant) {
  PortableServer::ObjectId_var id = poa_->activate_object(servant);
  CORBA::Object_var ref = poa_->id_to_reference(id);
  CORBA::String_var ior = orb_.orb()->object_to_string(ref);
  return ior.in();
}

bool collocated_shortcut_enabled() {
  const char* v = std::getenv("KAUSAL_COLLOCATED_CALLS");
  return !(v && std::strcmp(v, "poa") == 0);
}

}  // namespace kausal
