// The viewer's HTTP server (docs/viewer.md): the read-only JSON API over a store (api.h), the
// live matches of this process (live.h) as Server-Sent Events, and the static viewer from a
// web/ folder. It never calls a player and never writes to the store.
//
// Safety: GET and HEAD only (anything else: 405); ids are integers checked before use; static
// paths are resolved inside the web root (no "..", no symlink out of it, regular files only);
// every answer carries a Content-Security-Policy that allows only the server's own files;
// requests are read whole by a RequestDesk before a request thread takes them, with caps per
// address, so that slow or idle connections hold no thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "core/json.h"
#include "server/live.h"
#include "server/request_desk.h"
#include "server/submissions.h"
#include "tournament/store.h"

namespace arbiter::server {

struct ServerOptions {
  std::string host = "127.0.0.1";
  std::uint16_t port = 8080;  // 0: any free port
  std::filesystem::path web_root;  // the viewer's static files
  int threads = 64;  // request threads; each open live stream holds one
  // How requests are read before a request thread takes them (a slowloris holds none).
  RequestDesk::Rules desk;
  // Ladder entrant pages carry the tail of the entrant's own stderr of each finished match
  // (off by default: until authors log in, a bot's debug output is only its organizer's).
  bool show_stderr = false;
  // `serve --submissions`: logins, uploads and authors' own pages (submissions.h). Off: the
  // viewer stays read-only (GET and HEAD only).
  bool submissions = false;
  SubmissionApi::Options submission;
  std::size_t max_upload = std::size_t{16} << 20;  // an upload's body (the archive's own cap too)
  std::chrono::seconds session_lifetime{12 * 3600};
};

class ViewerServer {
 public:
  // `store` (may be null: live matches only) and `live` (may be null: the store only) must
  // outlive the server.
  ViewerServer(ServerOptions options, tournament::Store* store, LiveMatches* live);
  ~ViewerServer();
  ViewerServer(const ViewerServer&) = delete;
  ViewerServer& operator=(const ViewerServer&) = delete;

  // Binds the address; the port bound (the one asked, or a free one for 0).
  Expected<std::uint16_t> bind();
  // Serves until stop(), on this thread. REQUIRES: bind() succeeded.
  void run();
  // Serves on a thread of its own until stop() or destruction. REQUIRES: bind() succeeded.
  void start();
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The web/ folder of this source tree (set at build time), for a default --web.
std::filesystem::path default_web_root();

}  // namespace arbiter::server
