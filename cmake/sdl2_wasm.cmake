# SDL2 2.26.5 for WebAssembly, compiled inside this build tree: the target
# attnviz_sdl2 (static library + its public headers).
#
# Why not SDL's own CMake: its configure runs hundreds of serial try-compiles
# through emcc, about 5 minutes per build on this 2-core machine, and the two
# WebAssembly builds (attnviz and attnviz-mt) each need their own SDL2: wasm-ld
# links shared memory only from objects compiled with atomics (-pthread), and
# refuses objects with atomics in a module without shared memory.
#
# How, instead: the way Emscripten's own SDL2 port builds it (tools/ports/sdl2.py):
# a fixed list of sources and SDL's hand-written include/SDL_config_emscripten.h
# (include/SDL_config.h picks it when __EMSCRIPTEN__ is defined), no configure at
# all. The sources compile with the rest of the project, in parallel, with the
# build's own flags (so -pthread in attnviz-mt).
#
# Only what the app uses: runner.cpp initialises SDL_INIT_VIDEO | SDL_INIT_TIMER,
# and imgui_impl_sdl2.cpp also calls the game-controller API (it finds no pad).
# Audio, haptics, sensors and power are switched off (SDL_*_DISABLED) and their
# sources left out; so are the renderers for other platforms. A missing object
# shows at link time: Emscripten fails on an undefined symbol.
#
# Sources: build/deps/sdl2-src, unpacked from Debian's libsdl2 source package by
# scripts/fetch-deps.sh sdl2-src.

set(SDL2_SRC_DIR "${ATTNVIZ_DEPS_DIR}/sdl2-src")
if(NOT EXISTS "${SDL2_SRC_DIR}/include/SDL_config_emscripten.h")
  message(FATAL_ERROR "SDL2 sources missing in ${SDL2_SRC_DIR}: run scripts/fetch-deps.sh sdl2-src (make does this)")
endif()

set(_sdl_sources
  SDL.c SDL_assert.c SDL_dataqueue.c SDL_error.c SDL_guid.c SDL_hints.c SDL_list.c SDL_log.c SDL_utils.c
  atomic/SDL_atomic.c atomic/SDL_spinlock.c
  cpuinfo/SDL_cpuinfo.c
  dynapi/SDL_dynapi.c
  events/SDL_clipboardevents.c events/SDL_displayevents.c events/SDL_dropevents.c events/SDL_events.c
  events/SDL_gesture.c events/SDL_keyboard.c events/SDL_keysym_to_scancode.c events/SDL_mouse.c
  events/SDL_quit.c events/SDL_scancode_tables.c events/SDL_touch.c events/SDL_windowevents.c
  file/SDL_rwops.c
  filesystem/emscripten/SDL_sysfilesystem.c
  joystick/SDL_gamecontroller.c joystick/SDL_joystick.c joystick/controller_type.c
  joystick/emscripten/SDL_sysjoystick.c
  loadso/dlopen/SDL_sysloadso.c
  locale/SDL_locale.c locale/emscripten/SDL_syslocale.c
  misc/SDL_url.c misc/emscripten/SDL_sysurl.c
  render/SDL_render.c render/SDL_yuv_sw.c
  render/opengles2/SDL_render_gles2.c render/opengles2/SDL_shaders_gles2.c
  render/software/SDL_blendfillrect.c render/software/SDL_blendline.c render/software/SDL_blendpoint.c
  render/software/SDL_drawline.c render/software/SDL_drawpoint.c render/software/SDL_render_sw.c
  render/software/SDL_rotate.c render/software/SDL_triangle.c
  stdlib/SDL_crc16.c stdlib/SDL_crc32.c stdlib/SDL_getenv.c stdlib/SDL_iconv.c stdlib/SDL_malloc.c
  stdlib/SDL_qsort.c stdlib/SDL_stdlib.c stdlib/SDL_string.c stdlib/SDL_strtokr.c
  thread/SDL_thread.c
  timer/SDL_timer.c timer/unix/SDL_systimer.c
  video/SDL_RLEaccel.c video/SDL_blit.c video/SDL_blit_0.c video/SDL_blit_1.c video/SDL_blit_A.c
  video/SDL_blit_N.c video/SDL_blit_auto.c video/SDL_blit_copy.c video/SDL_blit_slow.c video/SDL_bmp.c
  video/SDL_clipboard.c video/SDL_egl.c video/SDL_fillrect.c video/SDL_pixels.c video/SDL_rect.c
  video/SDL_shape.c video/SDL_stretch.c video/SDL_surface.c video/SDL_video.c video/SDL_yuv.c
  video/emscripten/SDL_emscriptenevents.c video/emscripten/SDL_emscriptenframebuffer.c
  video/emscripten/SDL_emscriptenmouse.c video/emscripten/SDL_emscriptenopengles.c
  video/emscripten/SDL_emscriptenvideo.c
  video/yuv2rgb/yuv_rgb.c)
# No SDL threads, in attnviz-mt too (where SDL_config_emscripten.h would enable
# them): SDL_Init(SDL_INIT_TIMER) would start a timer thread, and attnviz-mt's
# worker pool is sized for the engine and strict (PTHREAD_POOL_SIZE_STRICT=2),
# so SDL could not start ("Not enough resources to create thread"). The app's
# main loop is emscripten_set_main_loop; SDL's timers are never used.
foreach(_f SDL_syscond.c SDL_sysmutex.c SDL_syssem.c SDL_systhread.c SDL_systls.c)
  list(APPEND _sdl_sources thread/generic/${_f})
endforeach()
list(TRANSFORM _sdl_sources PREPEND "${SDL2_SRC_DIR}/src/")

add_library(attnviz_sdl2 STATIC ${_sdl_sources})
target_include_directories(attnviz_sdl2 SYSTEM PUBLIC "${SDL2_SRC_DIR}/include")
target_include_directories(attnviz_sdl2 PRIVATE "${SDL2_SRC_DIR}/src")
target_compile_definitions(attnviz_sdl2 PRIVATE
  SDL_AUDIO_DISABLED=1 SDL_SENSOR_DISABLED=1 SDL_POWER_DISABLED=1 SDL_THREADS_DISABLED=1)
# SDL is third-party code: its own warnings are not ours to fix. -O2 as in
# Emscripten's port, whatever the build type (-Oz in the compact embed build).
target_compile_options(attnviz_sdl2 PRIVATE -w $<IF:$<BOOL:${ATTNVIZ_EMBED}>,-Oz,-O2>)
# The compact embed build leaves out SDL's software blitters, RLE and YUV (SDL's own
# SDL_LEAN_AND_MEAN): the app draws with OpenGL only, and they weigh about 100 KB of wasm.
if(ATTNVIZ_EMBED)
  target_compile_definitions(attnviz_sdl2 PRIVATE SDL_LEAN_AND_MEAN=1)
endif()
