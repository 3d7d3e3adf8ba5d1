# seatmap auf Deutsch: Seiten für Käufer, E-Mail und Meldungen.
# Namen von Veranstaltungen, Bereichen und Preisstufen schreibt der
# Veranstalter; sie kommen als $Argumente und werden nie übersetzt.

## Jede Seite

skip-to-content = Zum Inhalt springen
nav-my-orders = Meine Bestellungen
nav-language = Sprache
all-events = Alle Veranstaltungen
back-to-map = Zurück zum Saalplan

## Die Liste der Veranstaltungen

events-title = Veranstaltungen
events-none = Noch sind keine Veranstaltungen im Verkauf.
sold-out = Ausverkauft
standing-left = { $left } von { $total } Stehplätzen frei
price-from-amount = ab { $price }
sale-on-sale-at = Im Verkauf ab { $at }.
sale-not-yet = Noch nicht im Verkauf.
sale-draft = Ein Entwurf: nur das Personal sieht ihn, bis er veröffentlicht ist.
sale-closed = Der Verkauf für diese Veranstaltung ist beendet.
sale-started = Diese Veranstaltung hat begonnen; es werden keine Karten mehr verkauft.
sale-cancelled = Diese Veranstaltung ist abgesagt. Bestehende Bestellungen bleiben erhalten und werden erstattet.
sale-label-on-sale = Im Verkauf
sale-label-not-yet = Noch nicht im Verkauf
sale-label-draft = Entwurf
sale-label-closed = Verkauf beendet
sale-label-started = Begonnen
sale-label-cancelled = Abgesagt
seats-left = { $left } von { $total } Plätzen frei

## Der Saalplan

map-heading = Saalplan
map-all-sections = Alle Bereiche
map-section = Bereich { $name }
map-section-part = Reihen { $first }–{ $last }
map-section-part-row = Reihe { $row }
map-section-parts = Teile dieses Bereichs
map-stage = Bühne
map-tap-to-zoom = Tippen Sie auf den Plan, um hineinzuzoomen, dann auf einen Platz.
map-choose-section = Bereich wählen
zoom-out = Verkleinern
zoom-fit = An den Bildschirm anpassen
zoom-fit-short = Einpassen
zoom-in = Vergrößern
prices = Preise
prices-to-show = Angezeigte Preise
price-from = Von
price-to = bis
show = Anzeigen
show-in-full = Hervorheben
show-every-seat = alle Plätze
legend = Legende
list-link = Liste der freien Plätze
list-link-hint = (dieselben Aktionen, ohne Plan)
list-title = { $event }: Platzliste
list-heading = { $event }: freie Plätze
list-choose-section = Bereich wählen
list-none = Es sind keine Plätze frei.
list-row = Reihe { $row }

## Plätze, wie Menschen und Bildschirmleser sie hören

seat-name = { $section }, Reihe { $row }, Platz { $seat }
seat-state-available = frei
seat-state-held = von jemand anderem reserviert
seat-state-mine = von Ihnen reserviert
seat-state-sold = verkauft
seat-state-blocked = nicht im Verkauf
flag-wheelchair = Rollstuhlplatz
flag-companion = Begleitplatz
flag-restricted-view = eingeschränkte Sicht
flag-restricted-view-because = eingeschränkte Sicht ({ $why })
flag-aisle = Platz am Gang
flag-step-free = stufenloser Zugang
flag-hearing-loop = Induktionsschleife
flag-lift-up-armrest = hochklappbare Armlehne
flag-extra-legroom = mehr Beinfreiheit
flag-clear-view = freie Sicht
confirm-wheelchair-space = Dies ist ein Rollstuhlplatz. Ist er für jemanden im Rollstuhl?
confirm-companion-seat = Dies ist ein Begleitplatz neben einem Rollstuhlplatz. Ist er für die Begleitung einer Person im Rollstuhl?

## Beste Plätze

best-title = Beste Plätze
best-count = Anzahl Plätze
best-section = Bereich
best-any-section = Jeder Bereich
best-price = Preis
best-any-price = Jeder Preis
best-wheelchair = Im Rollstuhl
best-wheelchair-none = Niemand
best-wheelchair-hint = Jede Person im Rollstuhl bekommt einen Rollstuhlplatz, die übrige Gruppe sitzt daneben.
best-apart = Plätze dürfen getrennt sein
best-clear-view = Keine eingeschränkte Sicht
best-find = Plätze finden
best-found = Gefunden: { $seats } ({ $total }).
best-swapped = { $released } freigegeben; jetzt reserviert: { $seats } ({ $total }).
best-none-together = Für eine Gruppe dieser Größe gibt es keine Plätze nebeneinander. Kreuzen Sie „Plätze dürfen getrennt sein“ an, um die besten Plätze auch getrennt zu bekommen, oder versuchen Sie einen anderen Bereich oder Preis.
best-undo = Rückgängig: meine vorigen Plätze zurück
seats-one = Platz { $seat }
seats-run = Plätze { $first }–{ $last }
seats-place = { $section }, Reihe { $row }, { $seats }
seats-together = { $count ->
    [one] 1 Platz in { $place }
   *[other] { $count } Plätze nebeneinander in { $place }
}
seats-apart = { $count ->
    [one] 1 Platz: { $places }
   *[other] { $count } Plätze: { $places }
}

## Was ein Klick bewirkt hat

notice-holding = Reserviert: { $seat } ({ $price }).
notice-taken = Leider hat gerade jemand anderes { $seat } genommen. Bitte wählen Sie einen anderen Platz.
notice-over-limit = Sie können höchstens { $max } Plätze auf einmal reservieren. Geben Sie einen frei, um { $seat } zu wählen.
notice-released-seat = { $seat } freigegeben; der Platz ist wieder im Verkauf.
notice-not-in-hold = { $seat } ist nicht mehr in Ihrer Reservierung.
notice-released-seats = { $count ->
    [one] 1 Platz freigegeben; er ist wieder im Verkauf.
   *[other] { $count } Plätze freigegeben; sie sind wieder im Verkauf.
}
notice-no-hold = Sie haben keine Plätze reserviert.
inspect-available = { $seat } ist wieder frei. Wählen Sie ihn, um ihn zu reservieren.
inspect-mine = { $seat } ist in Ihrer Reservierung.
inspect-held = { $seat } ist von jemand anderem reserviert. Kauft diese Person ihn nicht, geht er wieder in den Verkauf, wenn ihre Reservierung abläuft.
inspect-sold = { $seat } ist verkauft.
inspect-blocked = { $seat } ist nicht im Verkauf.
notice-holding-ga = { $count ->
    [one] 1 Stehplatzkarte reserviert.
   *[other] { $count } Stehplatzkarten reserviert.
}
notice-released-ga = { $count ->
    [one] 1 Stehplatzkarte freigegeben; sie ist wieder im Verkauf.
   *[other] { $count } Stehplatzkarten freigegeben; sie sind wieder im Verkauf.
}
notice-held-until = Ihre Plätze sind reserviert bis { $until }.

## Stehplätze

ga-meta = Stehplatz · { $tier } { $price } pro Karte
ga-tickets = Karten
ga-hold = Karten reservieren
ga-left = { $count } frei
ga-mine = Sie haben { $count } reserviert

## Ihre Plätze (die Reservierung)

hold-heading = Ihre Plätze
hold-held-for = Reserviert für
hold-until = (bis { $clock })
hold-extend = Mehr Zeit nötig? { $minutes } Minuten dazu
hold-release = Freigeben
hold-release-seat = { $seat } freigeben
hold-release-all = Alle freigeben
hold-release-all-confirm = Alle Ihre Plätze freigeben? Sie gehen sofort wieder in den Verkauf.
hold-total = Gesamt
hold-ticket-type = Ticketart für { $seat }
hold-ga-place = { $area }, Platz { $n }
hold-promo-code = Aktionscode (optional)
selection-summary = { $tickets ->
    [0] { $seats ->
        [one] 1 Platz
       *[other] { $seats } Plätze
    }
   *[other] { $seats ->
        [0] { $tickets ->
            [one] 1 Karte
           *[other] { $tickets } Karten
        }
        [one] 1 Platz und { $tickets ->
            [one] 1 Karte
           *[other] { $tickets } Karten
        }
       *[other] { $seats } Plätze und { $tickets ->
            [one] 1 Karte
           *[other] { $tickets } Karten
        }
    }
}
buy-heading-now = Jetzt kaufen
buy-heading-checkout = Zur Kasse
buy-heading-reserve = Reservieren
buy-label-now = Für { $total } kaufen
buy-label-online = { $total } bezahlen
buy-label-reserve = Reservieren, { $total } an der Kasse zahlen
hold-left = übrig
hold-checkout = Zur Kasse
hold-name = Name
hold-email = E-Mail
hold-released-by-box-office = Die Kasse hat Ihre Reservierung aufgehoben; die Plätze sind wieder im Verkauf. Sie können neu wählen.
hold-none = Sie haben keine Plätze reserviert. Wählen Sie einen freien Platz im Plan; er wird { $minutes } Minuten für Sie reserviert, während Sie kaufen.
hold-awaiting-payment = Ihre Plätze warten auf Ihre Zahlung:
hold-finish-paying = Bezahlung abschließen
hold-expired-announce = Ihre Reservierung ist abgelaufen. Die Plätze sind wieder im Verkauf.
hold-30s-announce = Noch 30 Sekunden Reservierung.
hold-2min-announce = Noch 2 Minuten Reservierung.
hold-more-time-announce = Sie können mehr Zeit anfordern.
hold-expired-pick-again = Ihre Reservierung ist abgelaufen – bitte wählen Sie neu.

## Die Bestellung und ihre Karten

order-title = Ihre Karten: { $event }
order-thanks = Vielen Dank, { $name }.
order-for = { $name }, Ihre Bestellung für
order-places = Ihre Plätze
order-cancelled = Diese Veranstaltung wurde abgesagt. Ihre Bestellung bleibt erhalten und wird erstattet.
order-find-again = findet diese Bestellung in diesem Browser wieder.
order-number = Bestellnummer
order-heading-order = Ihre Bestellung
order-heading-tickets = Ihre Karten
order-tickets-shown = Karten { $range } von { $count } stehen auf dieser Seite; das PDF enthält alle.
order-pages = Seiten mit Karten
order-page-previous = Vorherige Karten
order-page-next = Weitere Karten
order-valid-tickets = { $count ->
    [one] 1 gültige Karte
   *[other] { $count } gültige Karten
}
mail-status-sent = Ihre Karten wurden um { $at } an { $email } geschickt.
mail-status-queued = Ihre Karten werden gleich an { $email } geschickt. Bis dahin finden Sie sie auf dieser Seite.
mail-status-retrying = Wir konnten { $email } noch nicht erreichen und versuchen es weiter. Ihre Karten finden Sie auf dieser Seite.
mail-status-failed = Wir konnten { $email } nicht erreichen und haben es aufgegeben. Ihre Karten sind auf dieser Seite: Bewahren Sie die Adresse auf oder drucken Sie sie aus.
mail-status-none = Für diese Bestellung wurde keine E-Mail verschickt; Ihre Karten sind auf dieser Seite.
ticket-refunded = Erstattet am { $at }
ticket-released = Am { $at } zum Verkauf zurückgegeben
ticket-release-to-sale = Verhindert? Diesen Abend zum Verkauf zurückgeben
ticket-admitted = Eingelassen am { $at } an { $gate }
ticket-valid = Gültig: Zeigen Sie diesen Code am Einlass
ga-place = { $area } (Stehplatz)
order-total = gesamt { $total }
order-print = Karten drucken
ticket-title = Karte: { $event }
ticket-for = für { $name }
ticket-code = Code
ticket-open-alone = Nur diese Karte öffnen
ticket-print = Diese Karte drucken
mine-title = Meine Bestellungen
mine-none = In diesem Browser wurde nichts bestellt. Eine anderswo gekaufte Bestellung öffnet sich über den Link in ihrer E-Mail.
mine-event = Veranstaltung
mine-when = Wann
mine-tickets = Karten
mine-total = Gesamt
mine-bought = Gekauft

## Die Bestätigung per E-Mail

mail-subject = Ihre Karten für { $event }
mail-greeting = Hallo { $name },
mail-thanks = vielen Dank für Ihre Bestellung. Ihre Karten für { $event } finden Sie unten.
mail-ticket-code = Kartencode: { $code }
mail-ticket-link = Karte mit QR-Code: { $url }
mail-order = Bestellung { $order }
mail-all-tickets = Alle Ihre Karten, fertig zum Drucken:
mail-link-until = Der Link gilt bis { $until }. Wer ihn hat, sieht Ihre Karten;
    geben Sie ihn also nicht weiter.
mail-door = Zeigen Sie am Einlass den QR-Code auf dem Handy oder auf Papier. Jeder Code
    lässt eine Person einmal ein.

## Fehler (der API und der Seiten)

error-seats-unavailable = Einige dieser Plätze hat gerade jemand anderes genommen.
error-hold-limit = Eine Reservierung kann höchstens { $max } Plätze enthalten.
error-hold-expired = Diese Reservierung ist abgelaufen; ihre Plätze sind wieder im Verkauf.
error-timeout = Die Anfrage kam zu langsam an. Bitte versuchen Sie es noch einmal.
error-no-event = Veranstaltung nicht gefunden.
error-no-page = Seite nicht gefunden.
error-no-hold = Reservierung nicht gefunden.
error-no-order = Bestellung nicht gefunden.
error-email = Geben Sie eine gültige E-Mail-Adresse ein, etwa name@example.com.
where-section = in { $section }
where-tier = in Preisstufe { $tier }
error-not-enough-seats = Nur { $free ->
    [one] 1 Platz ist
   *[other] { $free } Plätze sind
} frei{ $where }; gewünscht waren { $asked }.
error-not-enough-together = Es gibt keine { $asked } Plätze nebeneinander{ $where }, aber { $free } Plätze sind einzeln frei. Fragen Sie erneut mit "together": false, um die besten { $asked } auch getrennt zu bekommen.
error-kept-seats = { $count ->
    [one] 1 weiterer Rollstuhl- oder Begleitplatz ist für Menschen im Rollstuhl und ihre Begleitung reserviert.
   *[other] { $count } weitere Rollstuhl- und Begleitplätze sind für Menschen im Rollstuhl und ihre Begleitung reserviert.
}
error-no-wheelchair-space = Kein Rollstuhlplatz ist frei{ $where }.
error-spaces-elsewhere = Freie Rollstuhlplätze anderswo: { $sections }.
error-box-office-helps = Auch die Kasse hilft gern.
error-few-wheelchair-spaces = Nur { $free ->
    [one] 1 Rollstuhlplatz ist
   *[other] { $free } Rollstuhlplätze sind
} frei{ $where }; gewünscht waren { $asked }.
error-wheelchair-not-together = { $free ->
    [one] 1 Rollstuhlplatz ist
   *[other] { $free } Rollstuhlplätze sind
} frei{ $where }, aber keiner hat { $others ->
    [one] 1 freien Platz
   *[other] { $others } freie Plätze
} daneben. Fragen Sie erneut mit "together": false („Plätze dürfen getrennt sein“) nach { $spaces ->
    [one] 1 Rollstuhlplatz
   *[other] { $spaces } Rollstuhlplätzen
} und den besten anderen Plätzen in der Nähe.

payment-received = Zahlung erhalten
payment-paid-box-office = { $amount } an der Kasse bezahlt. Ihre Karten finden Sie unten.
payment-paid-card = { $amount } per Karte bezahlt. Ihre Karten finden Sie unten.
payment-waiting = Warten auf die Bestätigung der Zahlung
payment-waiting-text = Diese Seite aktualisiert sich, sobald die Kartenzahlung von { $amount } bestätigt ist; das dauert meist wenige Sekunden. Ihre Plätze bleiben so lange Ihre.
payment-not-made = Nicht bezahlt
payment-held = Ihre Plätze sind für die Zahlung reserviert
payment-pay-by = Zahlen Sie { $amount } bis { $by }, um Ihre Karten zu bekommen; danach gehen die Plätze wieder in den Verkauf.
payment-left-unpaid = Sie haben die Zahlungsseite ohne Zahlung verlassen. Zahlen Sie { $amount } bis { $by }, um Ihre Karten zu bekommen; danach gehen die Plätze wieder in den Verkauf.
payment-reserved = Reserviert: an der Kasse zahlen
payment-reserved-text = Zahlen Sie { $amount } bis { $by } an der Kasse und nennen Sie die Bestellnummer { $order }. Ihre Karten werden bei der Zahlung ausgestellt; danach gehen die Plätze wieder in den Verkauf.
payment-lapsed = Nicht rechtzeitig bezahlt
payment-lapsed-text = Diese Bestellung wurde nicht bis { $by } bezahlt; ihre Plätze sind wieder im Verkauf. Es wurde nichts berechnet.
payment-refunding = Ihre Zahlung wird erstattet
payment-late-refund-sent = Ihre Zahlung von { $amount } kam an, nachdem die Reservierung Ihrer Plätze abgelaufen war, und jemand anderes hatte sie inzwischen gekauft. Wir behalten kein Geld für Plätze, die wir Ihnen nicht geben konnten: Die Erstattung ist an Ihre Karte unterwegs; Banken zeigen sie meist innerhalb von 5 bis 10 Tagen.
payment-late-refunding = Ihre Zahlung von { $amount } kam an, nachdem die Reservierung Ihrer Plätze abgelaufen war, und jemand anderes hatte sie inzwischen gekauft. Wir behalten kein Geld für Plätze, die wir Ihnen nicht geben konnten: Der ganze Betrag wird Ihrer Karte erstattet.
mail-refund-subject = Ihre Zahlung für { $event } wird erstattet
mail-refund-text = Ihre Zahlung von { $amount } für { $event } ({ $starts }) kam an, nachdem
    die Reservierung Ihrer Plätze abgelaufen war, und inzwischen hatte jemand anderes
    sie gekauft. Wir behalten kein Geld für Plätze, die wir Ihnen nicht geben konnten:
    Die ganzen { $amount } werden der Karte erstattet, mit der Sie bezahlt haben. Banken
    zeigen eine Erstattung meist innerhalb von 5 bis 10 Tagen.
mail-refund-sorry = Das tut uns leid. Wenn Sie noch hingehen möchten: Der Saalplan zeigt, was jetzt frei ist.
mail-refunded-subject = Ihre Erstattung für { $event }
mail-refunded-text = Wir haben { $amount } für diese Karten für { $event } ({ $starts }) erstattet. Sie sind storniert und berechtigen nicht mehr zum Einlass:
mail-refunded-online = Das Geld geht auf die Karte zurück, mit der Sie bezahlt haben. Banken zeigen eine Erstattung meist nach 5 bis 10 Tagen.
mail-refunded-cash = Das Geld wurde Ihnen an der Kasse bar zurückgezahlt.
mail-refunded-card = Das Geld wurde an der Kasse auf Ihre Karte zurückgebucht. Banken zeigen eine Erstattung meist nach 5 bis 10 Tagen.
mail-refunded-box-office = Für diese Karten wurde online nichts berechnet: Die Kasse zahlt das Geld so zurück, wie Sie bezahlt haben.
mail-refunded-nothing = Für diese Karten wurde nichts bezahlt, es gibt also nichts zu erstatten.
mail-refunded-still-valid = { $count ->
    [one] Ihre andere Karte bleibt gültig; Ihre Bestellung zeigt sie:
   *[other] Ihre anderen { $count } Karten bleiben gültig; Ihre Bestellung zeigt sie:
}
mail-refunded-all = Von dieser Bestellung ist nichts mehr übrig.
error-buyer-name = Geben Sie Ihren Namen ein: 1 bis { $max } Zeichen, keines davon unsichtbar.
error-count = Fragen Sie nach 1 bis { $max } { $things ->
    [tickets] Karten
   *[seats] Plätzen
}.
error-wheelchair-users = Sagen Sie, wie viele der { $count } Personen im Rollstuhl sitzen: 0 bis { $count }.
error-already-purchased = Diese Reservierung wurde bereits gekauft.
error-hold-released = Diese Reservierung wurde aufgehoben; ihre Plätze sind wieder im Verkauf.
error-too-many-requests = Zu viele Reservierungsanfragen. Bitte warten Sie einen Moment und versuchen Sie es erneut.
error-holds-from-network = Aus Ihrem Netz sind zu viele Plätze reserviert ({ $live } Reservierungen). Kaufen oder geben Sie welche frei, oder warten Sie, bis eine abläuft.
error-live-streams = Aus Ihrem Netz sind zu viele Live-Saalpläne offen. Schließen Sie einige und laden Sie neu.
error-waitlist-entries = Von dieser Adresse gibt es schon { $max } Plätze auf dieser Warteliste, mehr sind nicht möglich.
error-proof-of-work-needed = Aus Ihrem Netz sind in der letzten Minute viele Menschen dieser Warteschlange beigetreten, daher braucht der Beitritt jetzt erst eine kurze Rechenaufgabe ({ $bits } Bit). Die Seite löst sie selbst; über die API fragen Sie nach einer Aufgabe und senden die Lösung mit.
error-house-share = Käufer aus Ihrem Netz halten schon { $max } Plätze für diese Veranstaltung, mehr darf ein Netz nicht halten, solange der Warteraum läuft. Kaufen oder geben Sie welche frei, oder warten Sie, bis eine Reservierung abläuft.
error-no-section = Diese Veranstaltung hat keinen solchen Bereich.
error-no-seat-in-hold = Dieser Platz ist nicht in der Reservierung.
error-no-seat-in-event = Diesen Platz gibt es in dieser Veranstaltung nicht.
error-no-ticket = Diese Karte gibt es nicht.
error-no-seats = Keinen Platz { $ids } in dieser Veranstaltung.
error-no-areas = Keinen Stehplatzbereich { $ids } in dieser Veranstaltung.
error-already-extended = Diese Reservierung hat ihre zusätzliche Zeit schon bekommen.
error-too-early-to-extend = Mehr Zeit können Sie in den letzten { $minutes } Minuten Ihrer Reservierung anfordern.
error-not-enough-capacity = { $left ->
    [0] { $area } ist ausverkauft.
    [one] In { $area } ist nur noch 1 Platz frei; Sie wollten { $asked }.
   *[other] In { $area } sind nur noch { $left } Plätze frei; Sie wollten { $asked }.
}
error-hold-being-paid = Diese Plätze sind im Bezahlvorgang und warten auf ihre Zahlung: Öffnen Sie Ihre Bestellung, um sie zu bezahlen.

## The waitlist
error-waitlist-first = Diese Plätze gehen zuerst an die Warteliste: Wartende bekommen sie angeboten, sobald sie frei werden. Tragen Sie sich ein, um Plätze angeboten zu bekommen.
error-not-sold-out = { $free ->
    [one] Ein passender Platz ist noch frei: Wählen Sie ihn, statt zu warten.
   *[other] { $free } passende Plätze sind noch frei: Wählen Sie sie, statt zu warten.
}
error-no-waitlist-entry = Diesen Platz auf der Warteliste gibt es nicht.
error-cannot-rejoin = Nach einem abgelaufenen Angebot kann man sich einmal neu eintragen.
error-offer-not-taken = Dieser Browser hält schon Plätze für diese Veranstaltung: Kaufen oder geben Sie sie frei und öffnen Sie den Link des Angebots dann noch einmal.
waitlist-title = Warteliste: { $event }
waitlist-party = { $count ->
    [one] Eine Person
   *[other] Eine Gruppe von { $count }
}
waitlist-unconfirmed = Ihr Platz ist noch nicht bestätigt: Öffnen Sie den Link in der E-Mail, die wir Ihnen geschickt haben, und drücken Sie „Platz bestätigen“. Bis dahin erhalten Sie kein Angebot.
waitlist-confirm = Platz bestätigen
waitlist-confirm-text = Bestätigen Sie, dass diese E-Mail-Adresse Ihnen gehört, um Ihren Platz auf der Warteliste einzunehmen. Nur bestätigte Plätze erhalten Angebote.
waitlist-confirmed = Ihr Platz ist bestätigt.
waitlist-waiting = Sie sind Nummer { $position } auf der Warteliste. Wir schreiben Ihnen, sobald Plätze für Sie frei werden.
waitlist-offered = Gerade werden Plätze für Sie freigehalten.
waitlist-take-offer = Plätze ansehen und kaufen
waitlist-offer-until = Sie gehören Ihnen bis { $until }; danach gehen sie an die nächste Gruppe.
waitlist-accepted = Sie haben die angebotenen Plätze gekauft.
waitlist-lapsed = Ihr Angebot ist abgelaufen, die Plätze gingen an die nächste Gruppe.
waitlist-left = Sie stehen nicht mehr auf dieser Warteliste.
waitlist-leave = Warteliste verlassen
waitlist-rejoin = Hinten neu eintragen
waitlist-back = Zurück zur Veranstaltung
waitlist-join-heading = Ausverkauft: auf die Warteliste
waitlist-join-text = Frei werdende Plätze gehen zuerst an die Warteliste, in der Reihenfolge der Anmeldung. Wir schicken Ihnen ein Angebot und halten die Plätze eine Weile für Sie frei.
waitlist-party-size = Plätze
waitlist-together = Nebeneinander
waitlist-email = E-Mail
waitlist-join = Auf die Warteliste
waitlist-mail-subject = Warteliste: { $event }
waitlist-mail-confirm = Sie haben einen Platz auf der Warteliste für { $event } ({ $starts }) angefragt. Bestätigen Sie Ihre E-Mail-Adresse, um ihn einzunehmen: Nur bestätigte Plätze erhalten Angebote. Wenn Sie nichts angefragt haben, ignorieren Sie diese E-Mail.
waitlist-mail-joined = Sie stehen auf der Warteliste für { $event } ({ $starts }). Werden Plätze für Sie frei, halten wir sie fest und schreiben Ihnen. Ihr Platz auf der Liste, und wie Sie sie verlassen:
waitlist-mail-offer-subject = Plätze für Sie: { $event }
waitlist-mail-offer = Für { $event } ({ $starts }) sind Plätze frei geworden und bis { $until } für Sie reserviert. Öffnen Sie diesen Link, um sie anzusehen und zu kaufen:
waitlist-mail-lapsed-subject = Ihr Angebot ist abgelaufen: { $event }
waitlist-mail-lapsed = Ihr Angebot für { $event } ist abgelaufen, die Plätze gingen an die nächste Gruppe. Sie können sich einmal hinten neu eintragen:
error-already-waiting = Sie stehen schon auf dieser Warteliste (dieser Browser oder diese E-Mail-Adresse).

# Receipts (issue 47)
receipt-tickets = Tickets
receipt-discount = Rabatt { $code }
receipt-fees = Buchungsgebühren
receipt-tax-included = Enthaltene MwSt. { $rate } %
receipt-tax-added = Steuer { $rate } %
receipt-total = Gesamt
receipt-refunded = Erstattet
receipt-heading = Beleg
notice-code-applied = Code { $code } eingelöst: der Gesamtbetrag zeigt den Rabatt.
notice-code-removed = Code entfernt.
hold-code-applied = Code { $code } eingelöst.
hold-code-remove = Entfernen
hold-code-apply = Einlösen

## Ein Ticket weitergeben, und das Ticket als Datei (Issue 49)
error-ticket-used = Dieses Ticket wurde schon am Einlass entwertet und kann nicht weitergegeben werden.
error-ticket-transferred = Dieses Ticket wurde an jemand anderen weitergegeben: Sein alter Code gilt nicht mehr.
error-transfers-not-allowed = Tickets für diese Veranstaltung können nicht weitergegeben werden.
error-transfers-closed = Tickets für diese Veranstaltung konnten bis { $at } weitergegeben werden.
error-transfer-limit = Dieses Ticket wurde so oft weitergegeben, wie diese Veranstaltung erlaubt ({ $limit }-mal).
error-transfer-cancelled = Diese Veranstaltung ist abgesagt: Ihre Tickets können nicht weitergegeben werden.
error-language = Wählen Sie eine der angebotenen Sprachen.
ticket-passed-on = An { $name } ({ $email }) gesendet: Deren neuer Code ist jetzt das Ticket.
order-pdf = Alle als PDF herunterladen
ticket-pdf = PDF herunterladen
ticket-apple-wallet = Zu Apple Wallet hinzufügen
ticket-google-wallet = Zu Google Wallet hinzufügen
transfer-heading = An jemanden senden
transfer-explain = Das Ticket geht per E-Mail mit einem neuen Code an die Person. Dieser Code gilt dann nicht mehr, auch nicht am Einlass.
transfer-name = Name der Person
transfer-email = E-Mail-Adresse der Person
transfer-lang = Sprache der Person
transfer-send = Ticket senden
passed-on-title = Dieses Ticket wurde weitergegeben
passed-on-text = Es wurde am { $at } an { $name } gesendet. Dieser Code gilt nicht mehr, nur der neue.
ticket-file-section = Bereich
ticket-file-row = Reihe
ticket-file-seat = Platz
ticket-file-area = Bereich
ticket-file-event = Veranstaltung
ticket-file-date = Datum
ticket-file-venue = Ort
ticket-file-type = Ticket
ticket-file-price = Preis
ticket-file-holder = Name
ticket-file-order = Bestellung
ticket-file-door-note = Zeigen Sie diesen Code am Einlass. Jedes Ticket gilt für einen Einlass.
mail-ticket-pdf = Das Ticket als PDF: { $url }
mail-tickets-pdf = Alle zusammen als PDF: { $url }
mail-transferred-subject = { $from } hat Ihnen ein Ticket für { $event } gesendet
mail-transferred-text = { $from } hat Ihnen ein Ticket für { $event } gesendet. Es gehört jetzt Ihnen:
mail-transferred-own = Dieser Code gehört nur Ihnen: Der Code von { $from } gilt nicht mehr.
mail-transfer-receipt-subject = Ihr Ticket für { $event } wurde weitergegeben
mail-transfer-receipt-text = Sie haben Ihr Ticket für { $event } ({ $place }) am { $at } an { $name } ({ $email }) gesendet.
mail-transfer-receipt-old-code = Sein alter Code gilt nicht mehr; die Person hat einen neuen erhalten.
mail-transfer-receipt-not-you = Falls Sie das nicht waren, wenden Sie sich sofort an die Kasse.
mail-ticket-passed-on = { $place } ({ $tier }): an { $name } weitergegeben; deren neuer Code ist jetzt das Ticket
seasons-title = Abonnements
season-events = { $count } Veranstaltungen, jedes Mal derselbe Platz
series-dates = { $count } Termine
season-not-yet = Im Verkauf ab { $at }.
season-place-held = Für Sie an jedem Abend des Abonnements reserviert.
season-place-released = An jedem Abend freigegeben.
season-best-found = { $count } Plätze nebeneinander, an jedem Abend reserviert.
season-released = Ihre Plätze sind wieder im Verkauf.
season-night-released = Dieser Abend ist wieder im Verkauf. Ihre anderen Abende bleiben.
season-night-released-credit = Dieser Abend ist wieder im Verkauf; sobald er verkauft ist, erhalten Sie den Preis als Guthaben. Ihre anderen Abende bleiben.
season-renewed = Verlängert: Ihre Plätze gehören Ihnen auch im neuen Abonnement.
season-given-up = Verzichtet: Ihre Plätze gehen zurück in den Verkauf.
season-nights = Die Termine
season-choose = Wählen Sie { $count } Termine
season-choose-show = Freie Plätze für diese Termine zeigen
season-your-places = Ihre Plätze
season-pick-hint = Wählen Sie einen Platz: Er wird an allen Abenden zugleich für Sie reserviert.
season-total = Gesamt { $total }
season-buy = Abonnement kaufen
season-release-all = Alle freigeben
renewal-title = Plätze verlängern: { $season }
renewal-for = Für { $name }
renewal-until = Für Sie reserviert bis { $until }. Danach gehen sie zurück in den Verkauf.
renewal-renew = Verlängern
renewal-give-up = Auf meine Plätze verzichten
renewal-over = Diese Verlängerung ist beendet: Die Plätze sind wieder im Verkauf.
renewal-see-order = Ihre Tickets ansehen
renewal-mail = Ihre Plätze sind im Abonnement { $season } bis { $until } für Sie reserviert. Verlängern Sie (oder verzichten Sie) über den Link unten; wenn Sie nichts tun, gehen sie danach zurück in den Verkauf.
renewal-mail-subject = Plätze verlängern: { $season }
queue-title = Warteraum: { $event }
queue-intro = Dieser Verkauf hat einen Warteraum, damit alle fair an die Reihe kommen und der Saalplan schnell bleibt. Wenn Sie dran sind, können Sie Plätze wählen.
queue-open-now = Der Verkauf ist eröffnet: Käufer werden der Reihe nach eingelassen.
queue-opens-at = Der Verkauf beginnt um { $time }.
queue-fair = Wer vor der Eröffnung beitritt, erhält einen Platz in zufälliger Reihenfolge: Früh kommen oder Neuladen bringt keinen Vorteil.
queue-position = Ihr Platz in der Reihe
queue-ahead = Personen vor Ihnen
queue-wait = Geschätzte Wartezeit
queue-keep-open = Lassen Sie diese Seite offen: Sie wechselt von selbst zum Saalplan, wenn Sie dran sind.
queue-expired = Ihre Einkaufszeit ist abgelaufen. Treten Sie erneut bei, um einen neuen Platz am Ende der Reihe zu erhalten.
queue-join = In die Warteschlange
queue-pow-needs-script = Ihr Browser löst ein kleines Rätsel, das Bots aus der Reihe hält …
queue-pow-ready = Bereit.
queue-wait-seconds = { $count ->
    [one] etwa 1 Sekunde
   *[other] etwa { $count } Sekunden
}
queue-wait-minutes = { $count ->
    [one] etwa 1 Minute
   *[other] etwa { $count } Minuten
}
queue-wait-hours = { $count ->
    [one] etwa 1 Stunde
   *[other] etwa { $count } Stunden
}
