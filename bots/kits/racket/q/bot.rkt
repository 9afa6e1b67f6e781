#lang racket/base
;; A Q bot for arbiter: one JSON message per line on stdin, one answer per line on stdout.
;; It places the first tile of its hand that fits next to the map, at the first such spot; with
;; no fit it swaps its hand if the referee has tiles enough, else it passes.
(require json racket/list)

(define key-hand (string->symbol "tile*"))
(define key-tile (string->symbol "1tile"))

(define (same? k a b) (equal? (hash-ref a k) (hash-ref b k)))

;; `tile` between neighbours a and b (#f: empty) along one line.
(define (fits-line? a tile b)
  (cond [(and a b) (or (and (same? 'shape a tile) (same? 'shape b tile))
                       (and (same? 'color a tile) (same? 'color b tile)))]
        [(or a b) => (lambda (o) (or (same? 'shape o tile) (same? 'color o tile)))]
        [else #t]))

(define (take-turn pub)
  (define board (make-hash))
  (for* ([row (hash-ref pub 'map)] [cell (cdr row)])
    (hash-set! board (cons (car row) (first cell)) (second cell)))
  (define (at r c) (hash-ref board (cons r c) #f))
  (define spots
    (sort (remove-duplicates
           (for*/list ([p (hash-keys board)] [d '((-1 . 0) (1 . 0) (0 . -1) (0 . 1))]
                       #:unless (hash-has-key? board (cons (+ (car p) (car d)) (+ (cdr p) (cdr d)))))
             (cons (+ (car p) (car d)) (+ (cdr p) (cdr d)))))
          (lambda (x y) (or (< (car x) (car y)) (and (= (car x) (car y)) (< (cdr x) (cdr y)))))))
  (define hand (hash-ref (first (hash-ref pub 'players)) key-hand))
  (or (for*/first ([tile hand] [s spots]
                   #:when (and (fits-line? (at (car s) (sub1 (cdr s))) tile (at (car s) (add1 (cdr s))))
                               (fits-line? (at (sub1 (car s)) (cdr s)) tile (at (add1 (car s)) (cdr s)))))
        (list (hasheq 'coordinate (hasheq 'row (car s) 'column (cdr s)) key-tile tile)))
      (if (>= (hash-ref pub key-hand) (length hand)) "replace" "pass")))

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
       (write-json (if (equal? (first msg) "take-turn") (take-turn (first (second msg))) "void"))
       (newline)
       (flush-output)
       (unless (equal? (first msg) "win") (loop))])))
