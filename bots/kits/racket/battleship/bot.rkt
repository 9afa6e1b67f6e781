#lang racket/base
;; A Battleship bot for arbiter: one JSON message per line on stdin, one answer per line on stdout.
;; Its fleet goes in the first places that fit, scanning the grid; it fires next to its open hits
;; first, then on a checkerboard (every ship covers a cell of each colour), then anywhere left.
(require json racket/list)

(define (cells row col len dir)
  (for/list ([i len]) (if (equal? dir "v") (cons (+ row i) col) (cons row (+ col i)))))

(define (ship-cells s) (cells (hash-ref s 'row) (hash-ref s 'col) (hash-ref s 'length) (hash-ref s 'dir)))

(define (place-fleet config)
  (define rows (hash-ref config 'rows))
  (define cols (hash-ref config 'cols))
  (define taken (make-hash))
  (for/list ([len (sort (hash-ref config 'ships) >)])
    (define ship
      (for*/first ([r rows] [c cols] [d '("h" "v")]
                   #:when (for/and ([p (cells r c len d)])
                            (and (< (car p) rows) (< (cdr p) cols) (not (hash-ref taken p #f)))))
        (hasheq 'length len 'row r 'col c 'dir d)))
    ;; Keep a cell of water around each ship, so that it fits no_touch too.
    (for* ([p (ship-cells ship)] [dr '(-1 0 1)] [dc '(-1 0 1)])
      (hash-set! taken (cons (+ (car p) dr) (+ (cdr p) dc)) #t))
    ship))

(define (shots view)
  (define config (hash-ref view 'config))
  (define rows (hash-ref config 'rows))
  (define cols (hash-ref config 'cols))
  (define salvo (hash-ref config 'salvo #f))
  (define tried (make-hash))
  (for ([s (hash-ref view 'outgoing)]) (hash-set! tried (cons (hash-ref s 'row) (hash-ref s 'col)) #t))
  (define near
    (for*/list ([s (hash-ref view 'outgoing)] #:when (equal? (hash-ref s 'result) "hit")
                [d '((-1 . 0) (1 . 0) (0 . -1) (0 . 1))])
      (cons (+ (hash-ref s 'row) (car d)) (+ (hash-ref s 'col) (cdr d)))))
  (define board (for*/list ([r rows] [c cols]) (cons r c)))
  (define order (append near (filter (lambda (p) (even? (+ (car p) (cdr p)))) board) board))
  (define hit (make-hash))
  (for ([s (hash-ref view 'incoming)] #:unless (equal? (hash-ref s 'result) "miss"))
    (hash-set! hit (cons (hash-ref s 'row) (hash-ref s 'col)) #t))
  (define want
    (if salvo
        (count (lambda (ship) (not (andmap (lambda (p) (hash-ref hit p #f)) (ship-cells ship))))
               (hash-ref view 'fleet))
        1))
  (define chosen
    (let pick ([order order] [out '()])
      (cond [(or (null? order) (= (length out) want)) (reverse out)]
            [else
             (define p (car order))
             (if (and (<= 0 (car p) (sub1 rows)) (<= 0 (cdr p) (sub1 cols)) (not (hash-ref tried p #f)))
                 (begin (hash-set! tried p #t)
                        (pick (cdr order) (cons (hasheq 'row (car p) 'col (cdr p)) out)))
                 (pick (cdr order) out))])))
  (if salvo chosen (first chosen)))

(let loop ()
  (define line (read-line))
  (unless (eof-object? line)
    (define msg (and (regexp-match? #rx"[^ \t\r]" line) (string->jsexpr line)))
    (cond
      [(not msg) (loop)]
      [(equal? (first msg) "ejected") ; the referee says why this bot is out; no answer
       (define why (first (second msg)))
       (eprintf "ejected: ~a during ~a: ~a\n" (hash-ref why 'verdict) (hash-ref why 'call)
                (hash-ref why 'detail))]
      [else
       (define method (first msg))
       (write-json (cond [(equal? method "setup") (place-fleet (first (second msg)))]
                         [(equal? method "take-turn") (shots (first (second msg)))]
                         [else "void"]))
       (newline)
       (flush-output)
       (unless (equal? method "win") (loop))])))
