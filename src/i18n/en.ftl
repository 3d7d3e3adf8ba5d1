# seatmap's buyer pages, mail and messages, in English.
# Event names, sections and price tiers are the venue's own words and are
# never translated: they arrive as $arguments.

## Every page

skip-to-content = Skip to content
nav-my-orders = My orders
nav-language = Language
all-events = All events
back-to-map = Back to the seat map

## The list of events

events-title = Events
events-none = No events are on sale yet.
sold-out = Sold out
standing-left = { $left } of { $total } standing places left
price-from-amount = from { $price }
sale-on-sale-at = On sale at { $at }.
sale-not-yet = Not on sale yet.
sale-draft = A draft: only staff see it until it is published.
sale-closed = Sales for this event have closed.
sale-started = This event has started; tickets are no longer sold.
sale-cancelled = This event is cancelled. Orders already placed are kept and will be refunded.
sale-label-on-sale = On sale
sale-label-not-yet = Not on sale yet
sale-label-draft = Draft
sale-label-closed = Sales closed
sale-label-started = Started
sale-label-cancelled = Cancelled
seats-left = { $left } of { $total } seats left

## The seat map

map-heading = Seat map
map-all-sections = All sections
map-section = Section { $name }
map-section-part = Rows { $first }–{ $last }
map-section-part-row = Row { $row }
map-section-parts = Parts of this section
map-stage = Stage
map-tap-to-zoom = Tap the map to zoom in, then tap a seat.
map-choose-section = Choose a section
zoom-out = Zoom out
zoom-fit = Fit to screen
zoom-fit-short = Fit
zoom-in = Zoom in
prices = Prices
prices-to-show = Prices to show
price-from = From
price-to = to
show = Show
show-in-full = Show in full
show-every-seat = every seat
legend = Legend
list-link = List of available seats
list-link-hint = (the same actions, without the map)
list-title = { $event }: seat list
list-heading = { $event }: available seats
list-choose-section = Choose a section
list-none = No seats are available.
list-row = Row { $row }

## Seats, as people and screen readers hear them

seat-name = { $section }, row { $row }, seat { $seat }
seat-state-available = available
seat-state-held = held by another buyer
seat-state-mine = held by you
seat-state-sold = sold
seat-state-blocked = not for sale
flag-wheelchair = wheelchair space
flag-companion = companion seat
flag-restricted-view = restricted view
flag-restricted-view-because = restricted view ({ $why })
flag-aisle = aisle seat
flag-step-free = step-free access
flag-hearing-loop = hearing loop
flag-lift-up-armrest = lift-up armrest
flag-extra-legroom = extra legroom
flag-clear-view = no restricted view
confirm-wheelchair-space = This is a wheelchair space. Is it for a wheelchair user?
confirm-companion-seat = This is a companion seat, beside a wheelchair space. Is it for someone with a wheelchair user?

## Best available

best-title = Best available
best-count = Number of seats
best-section = Section
best-any-section = Any section
best-price = Price
best-any-price = Any price
best-wheelchair = Wheelchair users
best-wheelchair-none = None
best-wheelchair-hint = Each gets a wheelchair space, with the rest of the party beside them.
best-apart = Seats may be apart
best-clear-view = No restricted view
best-find = Find seats
best-found = Found { $seats } ({ $total }).
best-swapped = Released { $released }; now holding { $seats } ({ $total }).
best-none-together = There are no seats together for a party that size. Tick “Seats may be apart” to take the best seats even if they are not side by side, or try another section or price.
best-undo = Undo: take my earlier seats back
seats-one = seat { $seat }
seats-run = seats { $first }–{ $last }
seats-place = { $section }, row { $row }, { $seats }
seats-together = { $count ->
    [one] 1 seat in { $place }
   *[other] { $count } seats together in { $place }
}
seats-apart = { $count ->
    [one] 1 seat: { $places }
   *[other] { $count } seats: { $places }
}

## What a click did

notice-holding = Holding { $seat } ({ $price }).
notice-taken = Sorry, { $seat } was just taken by someone else. Please pick another seat.
notice-over-limit = You can hold at most { $max } seats at once. Release one to pick { $seat }.
notice-released-seat = Released { $seat }; it is back on sale.
notice-not-in-hold = { $seat } is no longer in your hold.
notice-released-seats = { $count ->
    [one] Released 1 seat; it is back on sale.
   *[other] Released { $count } seats; they are back on sale.
}
notice-no-hold = You have no seats on hold.
inspect-available = { $seat } is available again. Select it to hold it.
inspect-mine = { $seat } is in your hold.
inspect-held = { $seat } is held by another buyer. If they don't buy it, it goes back on sale when their hold runs out.
inspect-sold = { $seat } is sold.
inspect-blocked = { $seat } is not for sale.
notice-holding-ga = { $count ->
    [one] Holding 1 general-admission ticket.
   *[other] Holding { $count } general-admission tickets.
}
notice-released-ga = { $count ->
    [one] Released 1 general-admission ticket; it is back on sale.
   *[other] Released { $count } general-admission tickets; they are back on sale.
}
notice-held-until = Your seats are held until { $until }.

## General admission

ga-meta = General admission · { $tier } { $price } each
ga-tickets = Tickets
ga-hold = Hold tickets
ga-left = { $count } left
ga-mine = You hold { $count }

## Your seats (the hold)

hold-heading = Your seats
hold-held-for = Held for
hold-until = (until { $clock })
hold-extend = Need more time? Add { $minutes } minutes
hold-release = Release
hold-release-seat = Release { $seat }
hold-release-all = Release all
hold-release-all-confirm = Release all your seats? They go back on sale at once.
hold-total = Total
hold-ticket-type = Ticket type for { $seat }
hold-ga-place = { $area }, place { $n }
hold-promo-code = Promo code (optional)
selection-summary = { $tickets ->
    [0] { $seats ->
        [one] 1 seat
       *[other] { $seats } seats
    }
   *[other] { $seats ->
        [0] { $tickets ->
            [one] 1 ticket
           *[other] { $tickets } tickets
        }
        [one] 1 seat and { $tickets ->
            [one] 1 ticket
           *[other] { $tickets } tickets
        }
       *[other] { $seats } seats and { $tickets ->
            [one] 1 ticket
           *[other] { $tickets } tickets
        }
    }
}
buy-heading-now = Buy now
buy-heading-checkout = Checkout
buy-heading-reserve = Reserve
buy-label-now = Buy for { $total }
buy-label-online = Pay { $total }
buy-label-reserve = Reserve, pay { $total } at the box office
hold-left = left
hold-checkout = Checkout
hold-name = Name
hold-email = Email
hold-released-by-box-office = The box office released your hold, so its seats are back on sale. You can pick seats again.
hold-none = You hold no seats. Select an available seat on the map to hold it for { $minutes } minutes while you buy.
hold-awaiting-payment = Your seats wait for your payment:
hold-finish-paying = Finish paying
hold-expired-announce = Your hold has expired. Its seats are back on sale.
hold-30s-announce = 30 seconds left on your hold.
hold-2min-announce = 2 minutes left on your hold.
hold-more-time-announce = You can ask for more time.
hold-expired-pick-again = Your hold expired — pick seats again.

## The order and its tickets

order-title = Your tickets: { $event }
order-thanks = Thank you, { $name }.
order-for = { $name }, your order for
order-places = Your seats
order-cancelled = This event has been cancelled. Your order is kept, and it will be refunded.
order-find-again = finds this order again in this browser.
order-number = Order number
order-heading-order = Your order
order-heading-tickets = Your tickets
order-tickets-shown = Tickets { $range } of { $count } are on this page; the PDF has them all.
order-pages = Pages of tickets
order-page-previous = Previous tickets
order-page-next = Next tickets
order-valid-tickets = { $count ->
    [one] 1 valid ticket
   *[other] { $count } valid tickets
}
mail-status-sent = Your tickets were e-mailed to { $email } at { $at }.
mail-status-queued = Your tickets are queued to be e-mailed to { $email }. Meanwhile, this page has them.
mail-status-retrying = We have not managed to e-mail { $email } yet and keep trying. This page has your tickets.
mail-status-failed = We could not e-mail { $email }, and have stopped trying. This page has your tickets: keep its address, or print them.
mail-status-none = No e-mail was sent for this order; this page has your tickets.
ticket-refunded = Refunded { $at }
ticket-released = Given back to sale { $at }
ticket-release-to-sale = Can't come? Give this night back to sale
ticket-admitted = Admitted { $at } at { $gate }
ticket-valid = Valid: show this code at the door
ga-place = { $area } (general admission)
order-total = total { $total }
order-print = Print tickets
ticket-title = Ticket: { $event }
ticket-for = for { $name }
ticket-code = Code
ticket-open-alone = Open this ticket alone
ticket-print = Print this ticket
mine-title = My orders
mine-none = No orders were bought in this browser. An order bought elsewhere opens from the link in its e-mail.
mine-event = Event
mine-when = When
mine-tickets = Tickets
mine-total = Total
mine-bought = Bought

## The confirmation e-mail

mail-subject = Your tickets for { $event }
mail-greeting = Hello { $name },
mail-thanks = Thank you for your order. Your tickets for { $event } are below.
mail-ticket-code = Ticket code: { $code }
mail-ticket-link = Ticket with its QR code: { $url }
mail-order = Order { $order }
mail-all-tickets = All your tickets, ready to print, are at:
mail-link-until = That link works until { $until }. Anyone with it can see your tickets,
    so keep it to yourself.
mail-door = At the door, show the QR code on your phone or on paper. Each code admits
    one person once.

## Errors (the API's and the pages')

error-seats-unavailable = Some of these seats were just taken by someone else.
error-hold-limit = A hold may contain at most { $max } seats.
error-hold-expired = This hold has expired; its seats have gone back on sale.
error-timeout = The request took too long to arrive. Please try again.
error-no-event = Event not found.
error-no-page = Page not found.
error-no-hold = Hold not found.
error-no-order = Order not found.
error-email = Enter a valid email address, like name@example.com.
where-section = in { $section }
where-tier = at tier { $tier }
error-not-enough-seats = Only { $free ->
    [one] 1 seat is
   *[other] { $free } seats are
} free{ $where }; { $asked } were asked for.
error-not-enough-together = There are no { $asked } seats together{ $where }, but { $free } seats are free apart. Ask again with "together": false to take the best { $asked } even if apart.
error-kept-seats = { $count ->
    [one] 1 more wheelchair space or companion seat is kept for wheelchair users and their companions.
   *[other] { $count } more wheelchair spaces and companion seats are kept for wheelchair users and their companions.
}
error-no-wheelchair-space = No wheelchair space is free{ $where }.
error-spaces-elsewhere = Free wheelchair spaces elsewhere: { $sections }.
error-box-office-helps = Staff at the box office can help too.
error-few-wheelchair-spaces = Only { $free ->
    [one] 1 wheelchair space is
   *[other] { $free } wheelchair spaces are
} free{ $where }; { $asked } were asked for.
error-wheelchair-not-together = { $free ->
    [one] 1 wheelchair space is
   *[other] { $free } wheelchair spaces are
} free{ $where }, but none has { $others ->
    [one] 1 seat
   *[other] { $others } seats
} free beside it. Ask again with "together": false (“Seats may be apart”) for { $spaces ->
    [one] 1 space
   *[other] { $spaces } spaces
} and the best other seats nearby.

## Paying for an order

payment-received = Payment received
payment-paid-box-office = { $amount } paid at the box office. Your tickets are below.
payment-paid-card = { $amount } paid by card. Your tickets are below.
payment-waiting = Waiting for the payment to be confirmed
payment-waiting-text = This page updates itself as soon as the card payment of { $amount } is confirmed; it usually takes a few seconds. Your seats stay yours meanwhile.
payment-not-made = Payment not made
payment-held = Your seats are held for payment
payment-pay-by = Pay { $amount } by { $by } to get your tickets; after that the seats go back on sale.
payment-left-unpaid = You left the payment page without paying. Pay { $amount } by { $by } to get your tickets; after that the seats go back on sale.
payment-reserved = Reserved: pay at the box office
payment-reserved-text = Pay { $amount } at the box office by { $by }, giving order number { $order }. Your tickets are issued when you pay; after that time the seats go back on sale.
payment-lapsed = Not paid in time
payment-lapsed-text = This order was not paid by { $by }, so its seats went back on sale. Nothing was charged.
payment-refunding = Your payment is being refunded
payment-late-refund-sent = Your payment of { $amount } arrived after the time your seats were kept for you had run out, and someone else had bought them by then. We don't keep money for seats we could not give you: the refund has been sent to your card; banks usually show it within 5 to 10 days.
payment-late-refunding = Your payment of { $amount } arrived after the time your seats were kept for you had run out, and someone else had bought them by then. We don't keep money for seats we could not give you: the whole amount is being refunded to your card.
mail-refund-subject = Your payment for { $event } is being refunded
mail-refund-text = Your payment of { $amount } for { $event } ({ $starts }) reached us after
    the time your seats were kept for you had run out, and by then someone else
    had bought them. We are not keeping money for seats we could not give you:
    the whole { $amount } is being refunded to the card you paid with. Banks
    usually show a refund within 5 to 10 days.
mail-refund-sorry = We are sorry. If you still want to go, the seat map shows what is free now.
mail-refunded-subject = Your refund for { $event }
mail-refunded-text = We have refunded { $amount } for these tickets to { $event } ({ $starts }). They are cancelled and no longer admit anyone:
mail-refunded-online = The money goes back to the card you paid with. Banks usually show a refund within 5 to 10 days.
mail-refunded-cash = The money was paid back to you in cash at the box office.
mail-refunded-card = The money was paid back to your card at the box office. Banks usually show a refund within 5 to 10 days.
mail-refunded-box-office = Nothing was charged online for these tickets: the box office pays the money back as you paid it.
mail-refunded-nothing = Nothing was paid for these tickets, so there is nothing to pay back.
mail-refunded-still-valid = { $count ->
    [one] Your other ticket is still valid; your order shows it:
   *[other] Your other { $count } tickets are still valid; your order shows them:
}
mail-refunded-all = Nothing is left of this order.

## More refusals a buyer meets

error-buyer-name = Enter your name: 1 to { $max } characters, none of them invisible.
error-count = Ask for between 1 and { $max } { $things ->
    [tickets] tickets
   *[seats] seats
}.
error-wheelchair-users = Say how many of the party of { $count } use a wheelchair: 0 to { $count }.
error-already-purchased = This hold has already been bought.
error-hold-released = This hold was released; its seats are back on sale.
error-too-many-requests = Too many hold requests. Please wait a moment and try again.
error-holds-from-network = Too many seats are on hold from your network ({ $live } holds). Buy or release some, or wait for a hold to expire.
error-live-streams = Too many live maps are open from your network. Close some and reload.
error-waitlist-entries = This address already has { $max } places on this waitlist, the most one may have.
error-proof-of-work-needed = Many people have joined this queue from your network in the last minute, so joining now needs a short puzzle solved first ({ $bits } bits). The page solves it by itself; with the API, ask for a challenge and send its answer.
error-house-share = Buyers from your network already hold { $max } seats for this event, the most one network may hold while its waiting room is on. Buy or release some, or wait for a hold to expire.
error-no-section = There is no such section in this event.
error-no-seat-in-hold = Seat in this hold not found.
error-no-seat-in-event = Seat in this event not found.
error-no-ticket = No such ticket.
error-no-seats = No seat { $ids } in this event.
error-no-areas = No general-admission area { $ids } in this event.
error-already-extended = This hold has already had its extra time.
error-too-early-to-extend = You can ask for more time in the last { $minutes } minutes of your hold.
error-not-enough-capacity = { $left ->
    [0] { $area } is sold out.
    [one] Only 1 place is left in { $area }; you asked for { $asked }.
   *[other] Only { $left } places are left in { $area }; you asked for { $asked }.
}
error-hold-being-paid = These seats are checked out and wait for their payment: open your order to pay for them.

## The waitlist
error-waitlist-first = These seats go to the waitlist first: parties waiting are offered them as they come free. Join the waitlist to be offered seats.
error-not-sold-out = { $free ->
    [one] One seat you would take is still on sale: pick it instead of waiting.
   *[other] { $free } seats you would take are still on sale: pick them instead of waiting.
}
error-no-waitlist-entry = No such place on the waitlist.
error-cannot-rejoin = A party may join again once, after an offer it was made ran out.
error-offer-not-taken = This browser already holds seats for this event: buy or release them, then open the offer's link again.
waitlist-title = Waitlist: { $event }
waitlist-party = { $count ->
    [one] A party of one
   *[other] A party of { $count }
}
waitlist-unconfirmed = Your place is not confirmed yet: open the link in the e-mail we sent you and press "Confirm my place". Until then you get no offer.
waitlist-confirm = Confirm my place
waitlist-confirm-text = Confirm that this e-mail address is yours to take your place on the waitlist. Only confirmed places get offers.
waitlist-confirmed = Your place is confirmed.
waitlist-waiting = You are number { $position } on the waitlist. We e-mail you as soon as seats come free for you.
waitlist-offered = Seats are being held for you now.
waitlist-take-offer = See and buy your seats
waitlist-offer-until = They are yours until { $until }; after that they go to the next party.
waitlist-accepted = You bought the seats you were offered.
waitlist-lapsed = Your offer ran out, and its seats went to the next party.
waitlist-left = You are no longer on this waitlist.
waitlist-leave = Leave the waitlist
waitlist-rejoin = Join again at the back
waitlist-back = Back to the event
waitlist-join-heading = Sold out: join the waitlist
waitlist-join-text = Seats that come free go to the waitlist first, in the order people joined. We e-mail you an offer and hold the seats for you for a while.
waitlist-party-size = Seats
waitlist-together = Side by side
waitlist-email = E-mail
waitlist-join = Join the waitlist
waitlist-mail-subject = Waitlist: { $event }
waitlist-mail-confirm = You asked for a place on the waitlist for { $event } ({ $starts }). Confirm your e-mail address to take it: only confirmed places get offers. If you did not ask, ignore this mail.
waitlist-mail-joined = You are on the waitlist for { $event } ({ $starts }). When seats come free for you, we hold them and e-mail you. Your place, and a way to leave the waitlist:
waitlist-mail-offer-subject = Seats for you: { $event }
waitlist-mail-offer = Seats came free for { $event } ({ $starts }) and are held for you until { $until }. Open this link to see and buy them:
waitlist-mail-lapsed-subject = Your offer ran out: { $event }
waitlist-mail-lapsed = Your offer for { $event } ran out, and its seats went to the next party. You may join the waitlist again, once, at the back:
error-already-waiting = You are already on this waitlist (this browser, or this e-mail address).

# Receipts (issue 47)
receipt-tickets = Tickets
receipt-discount = Discount { $code }
receipt-fees = Booking fees
receipt-tax-included = Including VAT { $rate } %
receipt-tax-added = Tax { $rate } %
receipt-total = Total
receipt-refunded = Refunded
receipt-heading = Receipt
notice-code-applied = Code { $code } applied: the total shows its discount.
notice-code-removed = Code removed.
hold-code-applied = Code { $code } applied.
hold-code-remove = Remove
hold-code-apply = Apply

## Passing a ticket on, and the ticket as a file (issue 49)
error-ticket-used = This ticket was already admitted at the door, so it can't be passed on.
error-ticket-transferred = This ticket was passed on to someone else: its old code no longer works.
error-transfers-not-allowed = Tickets for this event can't be passed on.
error-transfers-closed = Tickets for this event could be passed on until { $at }.
error-transfer-limit = This ticket has been passed on as often as this event allows ({ $limit } times).
error-transfer-cancelled = This event is cancelled: its tickets can't be passed on.
error-language = Choose one of the languages offered.
ticket-passed-on = Sent to { $name } ({ $email }): their new code is the ticket now.
order-pdf = Download all as PDF
ticket-pdf = Download PDF
ticket-apple-wallet = Add to Apple Wallet
ticket-google-wallet = Add to Google Wallet
transfer-heading = Send to someone
transfer-explain = The ticket goes to them by e-mail with a new code. This code then stops working, at the door too.
transfer-name = Their name
transfer-email = Their e-mail address
transfer-lang = Their language
transfer-send = Send the ticket
passed-on-title = This ticket was passed on
passed-on-text = It was sent to { $name } on { $at }. This code no longer gets in: their new one does.
ticket-file-section = Section
ticket-file-row = Row
ticket-file-seat = Seat
ticket-file-area = Area
ticket-file-event = Event
ticket-file-date = Date
ticket-file-venue = Venue
ticket-file-type = Ticket
ticket-file-price = Price
ticket-file-holder = Name
ticket-file-order = Order
ticket-file-door-note = Show this code at the door. Each ticket admits once.
mail-ticket-pdf = The ticket as a PDF: { $url }
mail-tickets-pdf = All of them as one PDF: { $url }
mail-transferred-subject = { $from } sent you a ticket for { $event }
mail-transferred-text = { $from } sent you a ticket for { $event }. It is yours now:
mail-transferred-own = This code is yours alone: the code { $from } had no longer works.
mail-transfer-receipt-subject = Your ticket for { $event } was sent on
mail-transfer-receipt-text = You sent your ticket for { $event } ({ $place }) to { $name } ({ $email }) on { $at }.
mail-transfer-receipt-old-code = Its old code no longer gets in; they have been sent a new one.
mail-transfer-receipt-not-you = If you did not do this, contact the box office at once.
mail-ticket-passed-on = { $place } ({ $tier }): sent to { $name }, whose new code is the ticket now
seasons-title = Seasons
season-events = { $count } events, the same seat at each
series-dates = { $count } dates
season-not-yet = On sale from { $at }.
season-place-held = Held for you in every night of the season.
season-place-released = Given back, in every night.
season-best-found = { $count } places side by side, held in every night.
season-released = Your places are back on sale.
season-night-released = This night is back on sale. Your other nights are unchanged.
season-night-released-credit = This night is back on sale; you get its price as credit once it sells. Your other nights are unchanged.
season-renewed = Renewed: your places are yours for the new season.
season-given-up = Given up: your places go back on sale.
season-nights = The nights
season-choose = Choose { $count } nights
season-choose-show = Show free places for these nights
season-your-places = Your places
season-pick-hint = Pick a seat: it is held for you in every night at once.
season-total = Total { $total }
season-buy = Buy the season
season-release-all = Give all back
renewal-title = Renew your seats: { $season }
renewal-for = For { $name }
renewal-until = Held for you until { $until }. After that they go back on sale.
renewal-renew = Renew
renewal-give-up = Give up my seats
renewal-over = This renewal has ended: the places are back on sale.
renewal-see-order = See your tickets
renewal-mail = Your seats are held for you in { $season } until { $until }. Renew them, or give them up, at the link below; if you do nothing they go back on sale after that.
renewal-mail-subject = Renew your seats: { $season }
queue-title = Waiting room: { $event }
queue-intro = This sale has a waiting room, so everyone gets a fair turn and the map stays fast. When it is your turn you can choose seats.
queue-open-now = The sale is open: buyers are let in in turn.
queue-opens-at = The sale opens at { $time }.
queue-fair = Everyone who joins before the opening gets a place in random order, so there is nothing to gain by arriving early or refreshing.
queue-position = Your place in line
queue-ahead = People ahead of you
queue-wait = Estimated wait
queue-keep-open = Keep this page open: it moves on to the seat map by itself when it is your turn.
queue-expired = Your shopping time is over. Join again to get a new place at the back of the line.
queue-join = Join the queue
queue-pow-needs-script = Your browser is solving a small puzzle that keeps bots out of the line…
queue-pow-ready = Ready.
queue-wait-seconds = { $count ->
    [one] about 1 second
   *[other] about { $count } seconds
}
queue-wait-minutes = { $count ->
    [one] about 1 minute
   *[other] about { $count } minutes
}
queue-wait-hours = { $count ->
    [one] about 1 hour
   *[other] about { $count } hours
}
